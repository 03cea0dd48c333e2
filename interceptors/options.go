package interceptors

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Options configure the kit's interceptors.
type Options struct {
	// Policies replaces the default policy of the classes it names. Each is
	// validated; its Class, if set, must match its key. If not set, every
	// class uses policies.DefaultActivityPolicies.
	Policies map[temporaladk.Class]policies.ActivityPolicy
	// Activities declares activities by activity type name: their class,
	// idempotency, timeout and key fields (temporaladk.Declaration). If not
	// set, calls get their class from the tag or DefaultClass.
	Activities map[string]temporaladk.Declaration
	// DefaultClass is the class of calls that have neither a class tag nor a
	// declared class. If not set, such calls are left exactly as they were.
	DefaultClass temporaladk.Class
	// Random returns the random numbers in [0, 1) that jitter is drawn from,
	// inside the activity. If not set, math/rand/v2's Float64.
	Random func() float64
	// Clock is the activity side's clock: heartbeat beats and times, the
	// time an attempt has run, and the wait for a budget charge's answer. If
	// not set, temporaladk.SystemClock.
	Clock temporaladk.Clock
	// ChargeTransport sends the charge Updates of budgeted retries to their
	// workflow runs. If not set, ClientChargeTransport: the activity's own
	// client. testsuite's kit environment gives one that sends them through
	// the SDK's test environment.
	ChargeTransport ChargeTransport
}

// Interceptor is the kit's worker interceptor: register it in
// worker.Options.Interceptors (Interceptor.WorkerOptions does it, with the
// heartbeat throttle the kit needs) or use NewPlugin. Its workflow side
// applies the class policies to every activity call; its activity side
// serves the calls (heartbeats, idempotency keys, errors with
// activity-drawn jitter, budget charges).
type Interceptor struct {
	interceptor.WorkerInterceptorBase

	policies     map[temporaladk.Class]policies.ActivityPolicy
	activities   map[string]temporaladk.Declaration
	defaultClass temporaladk.Class
	random       func() float64
	clock        temporaladk.Clock

	// unplannedSeen holds the workflow types whose calls arrived without
	// the kit's header, so that each is logged once.
	unplannedSeen sync.Map
	// headers holds encoded call headers by CallHeader (see encodeHeader).
	headersMu sync.RWMutex
	headers   map[CallHeader]*commonpb.Payload
	// decoded holds decoded call headers by their bytes (see readHeader).
	decodedMu sync.RWMutex
	decoded   map[string]CallHeader
	// charges asks runs to charge the retries of budgeted calls.
	charges *charger
}

var _ interceptor.WorkerInterceptor = (*Interceptor)(nil)

// New checks opts and returns the kit's worker interceptor. Bad options are
// an error naming what is wrong. New keeps no reference to the maps and
// slices in opts.
func New(opts Options) (*Interceptor, error) {
	i := &Interceptor{
		policies:     policies.DefaultActivityPolicies(),
		activities:   make(map[string]temporaladk.Declaration, len(opts.Activities)),
		defaultClass: opts.DefaultClass,
		random:       opts.Random,
		clock:        opts.Clock,
	}
	if i.random == nil {
		i.random = rand.Float64
	}
	if i.clock == nil {
		i.clock = temporaladk.SystemClock()
	}
	i.charges = &charger{transport: opts.ChargeTransport, clock: i.clock}
	if i.charges.transport == nil {
		i.charges.transport = ClientChargeTransport
	}
	if opts.DefaultClass != "" && !opts.DefaultClass.Valid() {
		return nil, fmt.Errorf("interceptors: Options.DefaultClass is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", opts.DefaultClass)
	}
	for _, c := range slices.Sorted(maps.Keys(opts.Policies)) {
		p := opts.Policies[c]
		if !c.Valid() {
			return nil, fmt.Errorf("interceptors: Options.Policies has a policy for %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", c)
		}
		if p.Class == "" {
			p.Class = c
		}
		if p.Class != c {
			return nil, fmt.Errorf("interceptors: Options.Policies[%s] is a policy for class %s", c, p.Class)
		}
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("interceptors: Options.Policies[%s]: %w", c, err)
		}
		i.policies[c] = p
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Activities)) {
		d := opts.Activities[name]
		if err := d.Validate(name); err != nil {
			return nil, fmt.Errorf("interceptors: Options.Activities: %w", err)
		}
		// A declared class and timeout must make a policy: found now, not on
		// the first call.
		if d.Class != "" {
			if _, _, err := policies.PlanCall(policies.Call{ActivityType: name, Declaration: &d, Policies: i.policies}); err != nil {
				return nil, fmt.Errorf("interceptors: Options.Activities[%q].Timeout: %w", name, err)
			}
		}
		d = d.Clone()
		d.Input = nil // only for checking; the kit keeps nothing of the caller's
		i.activities[name] = d
	}
	return i, nil
}

// PluginName is the name of the kit's worker plugin.
const PluginName = "temporaladk"

// HeartbeatThrottle is the longest the worker may hold back a heartbeat
// before it sends it to the server. The SDK sends at most one heartbeat per
// 0.8 × HeartbeatTimeout, or per the worker's MaxHeartbeatThrottleInterval
// when that is lower; the kit beats three times per window, so the worker's
// throttle must be below a third of the narrowest window for every beat to
// reach the server. One second serves every window of three seconds and up;
// the plugin and WorkerOptions set it.
const HeartbeatThrottle = time.Second

// NewPlugin returns the kit's interceptor as a worker plugin, for
// worker.Options.Plugins and worker.WorkflowReplayerOptions.Plugins, so
// that the replayer runs workflows with the same interceptor as the worker.
// On a worker it also lowers MaxHeartbeatThrottleInterval to
// HeartbeatThrottle when it is unset or higher, so that three beats per
// window reach the server.
func NewPlugin(opts Options) (*temporal.SimplePlugin, error) {
	i, err := New(opts)
	if err != nil {
		return nil, err
	}
	return temporal.NewSimplePlugin(temporal.SimplePluginOptions{
		Name:               PluginName,
		WorkerInterceptors: []interceptor.WorkerInterceptor{i},
		ConfigureWorker: func(_ context.Context, o worker.PluginConfigureWorkerOptions) error {
			o.WorkerOptions.MaxHeartbeatThrottleInterval = heartbeatThrottle(o.WorkerOptions.MaxHeartbeatThrottleInterval)
			return nil
		},
	})
}

// WorkerOptions returns opts with the interceptor appended to its
// Interceptors and MaxHeartbeatThrottleInterval lowered to HeartbeatThrottle
// when it is unset or higher: the one line a worker that registers the
// interceptor itself needs.
//
//	w := worker.New(c, "agents", kit.WorkerOptions(worker.Options{}))
func (i *Interceptor) WorkerOptions(opts worker.Options) worker.Options {
	opts.Interceptors = append(slices.Clone(opts.Interceptors), i)
	opts.MaxHeartbeatThrottleInterval = heartbeatThrottle(opts.MaxHeartbeatThrottleInterval)
	return opts
}

func heartbeatThrottle(current time.Duration) time.Duration {
	if current <= 0 || current > HeartbeatThrottle {
		return HeartbeatThrottle
	}
	return current
}

// Policy returns the policy the interceptor applies to class c.
func (i *Interceptor) Policy(c temporaladk.Class) (policies.ActivityPolicy, bool) {
	p, ok := i.policies[c]
	return p, ok
}
