package interceptors

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ActivityDeclaration is what the kit knows about one activity type, declared
// once at registration so that untouched workflow code gets the policy.
type ActivityDeclaration struct {
	// Class is the activity's class. If not set, the class comes from the tag
	// on the workflow context, else Options.DefaultClass.
	Class temporaladk.Class
	// Idempotency is what the activity says about repeating it. The zero
	// value, Undeclared, is treated as Effectful for TOOL calls: one attempt
	// unless the call has an idempotency key.
	Idempotency temporaladk.Idempotency
	// Timeout is how long one call may take: it becomes StartToClose and the
	// heartbeat window is derived from it. If not set, the class policy's
	// StartToClose applies. Must not be negative.
	Timeout time.Duration
	// KeyFields are the fields of the activity's first argument (JSON names,
	// "a.b" for nested ones) whose values identify one logical call. When
	// set, every call carries an idempotency key derived from them, the
	// workflow's tenant and its run. If not set, a call has a key only when
	// the workflow gives one (temporaladk.WithIdempotencyKey).
	KeyFields []string
	// Input, if not nil, is an example of the activity's first argument:
	// the KeyFields are checked against it when the interceptor is built.
	Input any
}

// Options configure the kit's interceptors.
type Options struct {
	// Policies replaces the default policy of the classes it names. Each is
	// validated; its Class, if set, must match its key. If not set, every
	// class uses policies.DefaultActivityPolicies.
	Policies map[temporaladk.Class]policies.ActivityPolicy
	// Activities declares activities by activity type name.
	Activities map[string]ActivityDeclaration
	// DefaultClass is the class of calls that have neither a class tag nor a
	// declaration. If not set, such calls are left exactly as they were.
	DefaultClass temporaladk.Class
	// Random returns the random numbers in [0, 1) that jitter is drawn from,
	// inside the activity. If not set, math/rand/v2's Float64.
	Random func() float64
	// Now is the clock of the activity side (heartbeat times, deadlines). If
	// not set, time.Now.
	Now func() time.Time
}

// Interceptor is the kit's worker interceptor: register it in
// worker.Options.Interceptors (or use NewPlugin). Its workflow side applies
// the class policies to every activity call; its activity side serves the
// calls (heartbeats, idempotency keys, errors with activity-drawn jitter).
type Interceptor struct {
	interceptor.WorkerInterceptorBase

	policies     map[temporaladk.Class]policies.ActivityPolicy
	activities   map[string]ActivityDeclaration
	defaultClass temporaladk.Class
	random       func() float64
	now          func() time.Time
}

var _ interceptor.WorkerInterceptor = (*Interceptor)(nil)

// New checks opts and returns the kit's worker interceptor. Bad options are
// an error naming what is wrong. New keeps no reference to the maps and
// slices in opts.
func New(opts Options) (*Interceptor, error) {
	i := &Interceptor{
		policies:     policies.DefaultActivityPolicies(),
		activities:   make(map[string]ActivityDeclaration, len(opts.Activities)),
		defaultClass: opts.DefaultClass,
		random:       opts.Random,
		now:          opts.Now,
	}
	if i.random == nil {
		i.random = rand.Float64
	}
	if i.now == nil {
		i.now = time.Now
	}
	if opts.DefaultClass != "" && !opts.DefaultClass.Valid() {
		return nil, fmt.Errorf("interceptors: Options.DefaultClass is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", opts.DefaultClass)
	}
	for _, c := range sortedKeys(opts.Policies) {
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
	for _, name := range sortedKeys(opts.Activities) {
		d := opts.Activities[name]
		field := func(f string) string { return fmt.Sprintf("Options.Activities[%q].%s", name, f) }
		switch {
		case name == "":
			return nil, fmt.Errorf("interceptors: Options.Activities has a declaration without an activity type name")
		case d.Class != "" && !d.Class.Valid():
			return nil, fmt.Errorf("interceptors: %s is %q, which is not one of MODEL, TOOL, RETRIEVAL, MEMORY", field("Class"), d.Class)
		case !d.Idempotency.Valid():
			return nil, fmt.Errorf("interceptors: %s is %v, which is not a declaration", field("Idempotency"), d.Idempotency)
		case d.Timeout < 0:
			return nil, fmt.Errorf("interceptors: %s is %v: it must not be negative (zero uses the class policy)", field("Timeout"), d.Timeout)
		}
		if err := temporaladk.ValidateKeyFields(d.KeyFields, d.Input); err != nil {
			return nil, fmt.Errorf("interceptors: %s %v", field("KeyFields"), err)
		}
		if d.Class != "" && d.Timeout > 0 {
			base := i.policies[d.Class]
			if _, err := policies.ActivityPolicyFor(d.Class, d.Timeout, &base); err != nil {
				return nil, fmt.Errorf("interceptors: %s: %w", field("Timeout"), err)
			}
		}
		d.KeyFields = slices.Clone(d.KeyFields)
		i.activities[name] = d
	}
	return i, nil
}

// PluginName is the name of the kit's worker plugin.
const PluginName = "temporaladk"

// NewPlugin returns the kit's interceptor as a worker plugin, for
// worker.Options.Plugins and worker.WorkflowReplayerOptions.Plugins, so
// that the replayer runs workflows with the same interceptor as the worker.
func NewPlugin(opts Options) (*temporal.SimplePlugin, error) {
	i, err := New(opts)
	if err != nil {
		return nil, err
	}
	return temporal.NewSimplePlugin(temporal.SimplePluginOptions{
		Name:               PluginName,
		WorkerInterceptors: []interceptor.WorkerInterceptor{i},
	})
}

// Policy returns the policy the interceptor applies to class c.
func (i *Interceptor) Policy(c temporaladk.Class) (policies.ActivityPolicy, bool) {
	p, ok := i.policies[c]
	return p, ok
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := slices.Collect(maps.Keys(m))
	sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
	return keys
}
