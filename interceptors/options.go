package interceptors

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/internal/seam"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/wire"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Options configure the kit that NewPlugin builds.
type Options struct {
	// Policies replaces the default policy of the classes it names, its keys
	// in any letter case (two keys for one class are an error). Each is
	// validated; its Class, if set, must match its key. A class it does not
	// name uses its default (policies.Default).
	Policies map[temporaladk.Class]policies.ActivityPolicy
	// Activities declares activities by activity type name: their class,
	// idempotency, timeout and key fields (temporaladk.Declaration). If not
	// set, calls get their class from the tag or DefaultClass.
	Activities map[string]temporaladk.Declaration
	// DefaultClass is the class of calls that have neither a class tag nor a
	// declared class, in any letter case. If not set, such calls are left
	// exactly as they were.
	DefaultClass temporaladk.Class
	// Random returns the random numbers in [0, 1) that jitter is drawn from,
	// inside the activity. If not set, math/rand/v2's Float64.
	Random func() float64
	// Clock is the activity side's clock: heartbeat beats and times, the
	// time an attempt has run, and the wait for a budget charge's answer. If
	// not set, the real clock (time.Now and time.After).
	Clock temporaladk.Clock
	// Prices is the worker's price table, by model name (temporaladk.Budgets.Model):
	// what a MODEL call under a cost budget is reserved and settled at,
	// per million tokens, in micro-dollars. Each reservation records the
	// prices it used, so that a replay with another table decides the
	// same. A negative price is an error naming the model and the field.
	Prices map[string]spend.Price
	// Approvals say who may approve the calls that need an approval and
	// how decisions are verified (approvals.WorkerOptions). Every activity
	// Activities declares RequiresApproval needs an entry in
	// Approvals.Tools.
	Approvals approvals.WorkerOptions
	// Observer is called at each decision the kit has an event for (see
	// package observe): the start and end of every activity attempt, and
	// in workflow code, outside replay, each approval asked and decided,
	// each call planned and ended, and each attempt a budget grants or
	// refuses. If not set, nothing is called, and the kit watches no
	// call's future.
	Observer observe.Observer
	// Fleet says how a worker with the kit watches its task queue for
	// workers without the kit (FleetOptions). If not set, it does not.
	Fleet FleetOptions
}

// kitInterceptor is the kit's worker interceptor. It reaches a worker only
// through the kit's plugin (NewPlugin), which configures the worker for it:
// its workflow side applies the class policies to every activity call; its
// activity side serves the calls (heartbeats, idempotency keys, errors with
// activity-drawn jitter, budget charges).
type kitInterceptor struct {
	interceptor.WorkerInterceptorBase

	policies     map[temporaladk.Class]policies.ActivityPolicy
	activities   map[string]temporaladk.Declaration
	defaultClass temporaladk.Class
	random       func() float64
	clock        temporaladk.Clock
	// approvers and approvalVerifier are Options.Approvals, checked.
	approvers        map[string]approvals.Approvers
	approvalVerifier approvals.Verifier
	approvalFlag     bool
	// notify calls Options.Observer.
	notify notifier

	// unplannedSeen holds the workflow types whose calls arrived without
	// the kit's header, so that each is logged once.
	unplannedSeen sync.Map
	// headers holds encoded call headers by CallHeader (see encodeHeader).
	headersMu sync.RWMutex
	headers   map[wire.CallHeader]*commonpb.Payload
	// decoded holds decoded call headers by their bytes (see readHeader).
	decodedMu sync.RWMutex
	decoded   map[string]wire.CallHeader
	// charges asks runs to charge, reserve and settle the attempts of
	// budgeted calls.
	charges *charge.Charger
	// retryPolicyOf is seam.Seams.RetryPolicyOf.
	retryPolicyOf func(ctx context.Context, info activity.Info) *temporal.RetryPolicy
	// schedulingsOf is seam.Seams.SchedulingsOf, else historySchedulings.
	schedulingsOf func(ctx context.Context, info activity.Info) (int, error)

	// fleet is Options.Fleet and what the kit knows of the workers it runs
	// on: each worker's queue and refusal, and the pollers without the kit
	// on their queues.
	fleet *fleet

	// configured is set when the kit's plugin configures a worker or a
	// replayer for this interceptor: until then it serves no task (see
	// unconfigured).
	configured atomic.Bool
}

var _ interceptor.WorkerInterceptor = (*kitInterceptor)(nil)

// newInterceptor checks opts and returns the kit's worker interceptor,
// built with seams. Bad options are an error naming what is wrong. It keeps
// no reference to the maps and slices in opts.
func newInterceptor(opts Options, seams seam.Seams) (*kitInterceptor, error) {
	i := &kitInterceptor{
		policies:     map[temporaladk.Class]policies.ActivityPolicy{},
		activities:   make(map[string]temporaladk.Declaration, len(opts.Activities)),
		defaultClass: opts.DefaultClass,
		random:       opts.Random,
		clock:        opts.Clock,
		notify:       newNotifier(opts.Observer),
	}
	for _, c := range vocab.Classes() {
		p, err := policies.Default(c)
		if err != nil {
			return nil, err
		}
		i.policies[c] = p
	}
	if i.random == nil {
		i.random = rand.Float64
	}
	if i.clock == nil {
		i.clock = vocab.SystemClock()
	}
	i.retryPolicyOf = seams.RetryPolicyOf
	i.schedulingsOf = seams.SchedulingsOf
	if i.schedulingsOf == nil {
		i.schedulingsOf = historySchedulings
	}
	// Every class the options name is read in any letter case, as
	// temporaladk.Class.UnmarshalText reads it, and kept in its canonical
	// spelling.
	i.defaultClass = vocab.CanonicalClass(opts.DefaultClass)
	if i.defaultClass != "" && !i.defaultClass.Valid() {
		return nil, fmt.Errorf("interceptors: Options.DefaultClass is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", opts.DefaultClass)
	}
	given := map[temporaladk.Class]temporaladk.Class{}
	for _, key := range slices.Sorted(maps.Keys(opts.Policies)) {
		p, c := opts.Policies[key], vocab.CanonicalClass(key)
		if !c.Valid() {
			return nil, fmt.Errorf("interceptors: Options.Policies has a policy for %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", key)
		}
		if other, twice := given[c]; twice {
			return nil, fmt.Errorf("interceptors: Options.Policies has two policies for class %s, under %q and %q", c, other, key)
		}
		given[c] = key
		p.Class = vocab.CanonicalClass(p.Class)
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
	prices := make(map[string]spend.Price, len(opts.Prices))
	for _, model := range slices.Sorted(maps.Keys(opts.Prices)) {
		p := opts.Prices[model]
		if model == "" {
			return nil, fmt.Errorf("interceptors: Options.Prices has a price for an empty model name: temporaladk.Budgets.Model names the entry a call is priced at")
		}
		if err := p.Validate(model); err != nil {
			return nil, fmt.Errorf("interceptors: Options.Prices: %w", err)
		}
		prices[model] = p
	}
	i.charges = charge.NewCharger(seams.Transport, i.clock, prices)
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
		d.Class = vocab.CanonicalClass(d.Class)
		d.Input = nil // only for checking; the kit keeps nothing of the caller's
		i.activities[name] = d
	}
	var err error
	if i.approvers, err = validateApprovals(opts.Approvals, i.activities); err != nil {
		return nil, err
	}
	i.approvalVerifier, i.approvalFlag = opts.Approvals.Verifier, opts.Approvals.SearchAttribute
	if err := validateFleet(opts.Fleet); err != nil {
		return nil, err
	}
	i.fleet = newFleet(opts.Fleet)
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
// the kit's plugin sets it.
const HeartbeatThrottle = time.Second

// NewPlugin checks opts and returns the kit as a worker plugin: the one way
// to register the kit, for worker.Options.Plugins (or a client's plugins)
// and worker.WorkflowReplayerOptions.Plugins, so that the replayer runs
// workflows as the worker does. On a worker it also lowers
// MaxHeartbeatThrottleInterval to HeartbeatThrottle when it is unset or
// higher, so that three beats per window reach the server, and ends the
// worker's Identity with IdentityMark (an unset one becomes the SDK's
// default client identity, "pid@host@", marked: set
// worker.Options.Identity to keep a client-wide one). With
// Options.Fleet, the worker reads its task queue's pollers from its start
// to its stop and reports those without the mark. Bad options are an error
// naming the field.
//
// The plugin adds the kit's interceptor to the worker it configures; the
// interceptor is not handed out otherwise. One plugin given twice applies
// once; two plugins (two NewPlugin calls) on one worker make worker.Start
// (which worker.Run calls) return an error wrapping ErrRegisteredTwice,
// before the worker polls, and the replayer's construction likewise. Two plugins
// built from equal Options are refused the same way: equality of Options
// is not decidable, since Random is a func and Clock, Observer and
// Approvals.Verifier are interfaces (two observers alike in every field
// are still two observers), so the one plugin value is what applies once.
func NewPlugin(opts Options) (*temporal.SimplePlugin, error) {
	return newPlugin(opts, seam.Seams{})
}

func init() {
	// testsuite builds its kit with the SDK test environment's seams.
	seam.NewPlugin = func(opts any, seams seam.Seams) (*temporal.SimplePlugin, error) {
		o, ok := opts.(Options)
		if !ok {
			panic(fmt.Sprintf("interceptors: seam.NewPlugin is given %T, not interceptors.Options", opts))
		}
		return newPlugin(o, seams)
	}
}

func newPlugin(opts Options, seams seam.Seams) (*temporal.SimplePlugin, error) {
	i, err := newInterceptor(opts, seams)
	if err != nil {
		return nil, err
	}
	return i.plugin()
}

// plugin returns the worker plugin that adds i to the worker or replayer it
// configures, once, and sets the worker's heartbeat throttle.
func (i *kitInterceptor) plugin() (*temporal.SimplePlugin, error) {
	return temporal.NewSimplePlugin(temporal.SimplePluginOptions{
		Name: PluginName,
		ConfigureWorker: func(_ context.Context, o worker.PluginConfigureWorkerOptions) error {
			joined, err := i.once(append(slices.Clone(o.WorkerOptions.Interceptors), i))
			if err != nil {
				// worker.New has no error to return (the SDK panics on
				// one): the worker is refused when it starts instead,
				// by both kits (the first one's start comes first, so
				// nothing of either begins), and this kit stays off it.
				i.fleet.configured(o.WorkerInstanceKey, o.TaskQueue, err)
				for _, wi := range o.WorkerOptions.Interceptors {
					if other, ok := wi.(*kitInterceptor); ok && other != i {
						other.fleet.configured(o.WorkerInstanceKey, o.TaskQueue, err)
					}
				}
				return nil
			}
			o.WorkerOptions.Interceptors = joined
			o.WorkerOptions.MaxHeartbeatThrottleInterval = heartbeatThrottle(o.WorkerOptions.MaxHeartbeatThrottleInterval)
			o.WorkerOptions.Identity = markIdentity(o.WorkerOptions.Identity)
			i.fleet.configured(o.WorkerInstanceKey, o.TaskQueue, nil)
			i.configured.Store(true)
			return nil
		},
		RunContextBefore: func(_ context.Context, o temporal.SimplePluginRunContextBeforeOptions) error {
			if o.WorkflowReplayer {
				return nil // a replayer's refusal is its construction's
			}
			return i.fleet.start(o.InstanceKey)
		},
		RunContextAfter: func(_ context.Context, o temporal.SimplePluginRunContextAfterOptions) {
			i.fleet.stopped(o.InstanceKey)
		},
		ConfigureWorkflowReplayer: func(_ context.Context, o worker.PluginConfigureWorkflowReplayerOptions) error {
			joined, err := i.once(append(slices.Clone(o.WorkflowReplayerOptions.Interceptors), i))
			if err != nil {
				return err
			}
			o.WorkflowReplayerOptions.Interceptors = joined
			i.configured.Store(true)
			return nil
		},
	})
}

// ErrRegisteredTwice is the cause of the error worker.Start (and so
// worker.Run) and the replayer's construction return when two different kits (two
// NewPlugin calls, also from equal Options) are registered on one worker or
// replayer: each would charge every budgeted attempt, gate every declared
// call and write its own header, so the kit refuses rather than pick one.
var ErrRegisteredTwice = errors.New("two different kits are registered on one worker (two interceptors.NewPlugin calls, also when built from equal Options, which the kit cannot compare: Random is a func, Clock, Observer and Approvals.Verifier interfaces): build the plugin once and give that one value to the worker, its client and its replayer")

// once is interceptors with i kept once, where it first stands: the kit's
// plugin applied twice (on the client and the worker) applies once.
// Another kit interceptor among them is an error wrapping
// ErrRegisteredTwice. It returns a new slice and never changes the one it
// is given.
func (i *kitInterceptor) once(interceptors []interceptor.WorkerInterceptor) ([]interceptor.WorkerInterceptor, error) {
	out := make([]interceptor.WorkerInterceptor, 0, len(interceptors))
	seen := false
	for _, wi := range interceptors {
		kit, ok := wi.(*kitInterceptor)
		switch {
		case !ok:
			out = append(out, wi)
		case kit != i:
			return nil, fmt.Errorf("interceptors: %w", ErrRegisteredTwice)
		case !seen:
			seen = true
			out = append(out, wi)
		}
	}
	return out, nil
}

// errUnconfigured is why a kit interceptor that no plugin of the kit
// configured serves no task: it reached the worker some other way than
// NewPlugin, so the worker's heartbeat throttle is the SDK's and the
// registration is not the one the kit checks.
var errUnconfigured = errors.New("temporaladk: the kit's interceptor reached this worker without its plugin; register the kit with interceptors.NewPlugin in worker.Options.Plugins, the one path")

func heartbeatThrottle(current time.Duration) time.Duration {
	if current <= 0 || current > HeartbeatThrottle {
		return HeartbeatThrottle
	}
	return current
}

// policy returns the policy the interceptor applies to class c.
func (i *kitInterceptor) policy(c temporaladk.Class) (policies.ActivityPolicy, bool) {
	p, ok := i.policies[c]
	return p, ok
}
