package interceptors_test

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// classSpellings are names of classes in several letter cases and names of
// none.
var classSpellings = []string{
	"MODEL", "model", "Model", "mOdEl", "tool", "Tool", "retrieval", "RETRIEVAL", "Memory", "memory",
	"REASONING", "llm", " model", "model ", "model\x00", "MODELS", "TOOL_",
}

// reportClass runs a workflow that calls Report, on ctx tagged with tag
// when tag is not empty, on a worker with the kit built from opts, and
// returns the class the activity was served with and the workflow's error.
func reportClass(t *testing.T, opts interceptors.Options, tag temporaladk.Class) (CallReport, error) {
	t.Helper()
	env := newEnv(t, opts, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) (CallReport, error) {
		if tag != "" {
			ctx = temporaladk.WithClass(ctx, tag)
		}
		var r CallReport
		err := workflow.ExecuteActivity(ctx, Report, "x").Get(ctx, &r)
		return r, err
	})
	if err := env.GetWorkflowError(); err != nil {
		return CallReport{}, err
	}
	var r CallReport
	require.NoError(t, env.GetWorkflowResult(&r))
	return r, nil
}

// TestUnitEveryClassEntryReadsTheSpellingsOfUnmarshalText holds that every
// place the kit takes a class accepts exactly the names
// temporaladk.Class.UnmarshalText accepts, and reads each as the class
// UnmarshalText gives: a tag, a declaration, the default class and a policy's
// key on the interceptor, and every class policies takes.
func TestUnitEveryClassEntryReadsTheSpellingsOfUnmarshalText(t *testing.T) {
	for _, name := range classSpellings {
		var want temporaladk.Class
		accepted := want.UnmarshalText([]byte(name)) == nil
		c := temporaladk.Class(name)
		entries := map[string]func(t *testing.T) (temporaladk.Class, error){
			"WithClass": func(t *testing.T) (temporaladk.Class, error) {
				r, err := reportClass(t, interceptors.Options{}, c)
				return r.Class, err
			},
			"Declaration.Validate": func(*testing.T) (temporaladk.Class, error) {
				d := temporaladk.Declaration{Class: c}
				return want, d.Validate("Report")
			},
			"Declaration.IsTool": func(*testing.T) (temporaladk.Class, error) {
				if (temporaladk.Declaration{Class: c}).IsTool() {
					return temporaladk.Tool, nil
				}
				return "", assert.AnError
			},
			"Options.Activities": func(t *testing.T) (temporaladk.Class, error) {
				opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{"Report": {Class: c}}}
				if _, err := interceptors.NewPlugin(opts); err != nil {
					return "", err
				}
				r, err := reportClass(t, opts, "")
				return r.Class, err
			},
			"Options.DefaultClass": func(t *testing.T) (temporaladk.Class, error) {
				opts := interceptors.Options{DefaultClass: c}
				if _, err := interceptors.NewPlugin(opts); err != nil {
					return "", err
				}
				r, err := reportClass(t, opts, "")
				return r.Class, err
			},
			"Options.Policies key": func(t *testing.T) (temporaladk.Class, error) {
				if !accepted {
					_, err := interceptors.NewPlugin(interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{c: {}}})
					return "", err
				}
				p := mustPolicy(t, want)
				p.Class, p.StartToClose = "", 77*time.Second
				opts := interceptors.Options{Policies: map[temporaladk.Class]policies.ActivityPolicy{c: p}}
				if _, err := interceptors.NewPlugin(opts); err != nil {
					return "", err
				}
				r, err := reportClass(t, opts, want)
				if err == nil && r.StartToClose != 77*time.Second {
					t.Errorf("the policy under key %q was not applied: StartToClose %v", name, r.StartToClose)
				}
				return r.Class, err
			},
			"ActivityPolicy.Validate": func(t *testing.T) (temporaladk.Class, error) {
				base := temporaladk.Memory
				if accepted {
					base = want
				}
				p := mustPolicy(t, base)
				p.Class = c
				return want, p.Validate()
			},
			"policies.Default": func(*testing.T) (temporaladk.Class, error) {
				p, err := policies.Default(c)
				return p.Class, err
			},
			"policies.ActivityPolicyFor": func(*testing.T) (temporaladk.Class, error) {
				p, err := policies.ActivityPolicyFor(c, 20*time.Second, nil)
				return p.Class, err
			},
			"policies.PlanCall Tag": func(*testing.T) (temporaladk.Class, error) {
				pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Report", Tag: c})
				return pl.Class, err
			},
			"policies.PlanCall Declaration": func(*testing.T) (temporaladk.Class, error) {
				pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Report", Declaration: &temporaladk.Declaration{Class: c}})
				return pl.Class, err
			},
			"policies.PlanCall DefaultClass": func(*testing.T) (temporaladk.Class, error) {
				pl, _, err := policies.PlanCall(policies.Call{ActivityType: "Report", DefaultClass: c})
				return pl.Class, err
			},
		}
		for entry, read := range entries {
			t.Run(entry+"/"+name, func(t *testing.T) {
				got, err := read(t)
				if entry == "Declaration.IsTool" {
					assert.Equal(t, want == temporaladk.Tool, err == nil, "IsTool of a declaration of class %q", name)
					return
				}
				if !accepted {
					assert.Error(t, err, "UnmarshalText refuses %q", name)
					return
				}
				require.NoError(t, err, "UnmarshalText reads %q as %s", name, want)
				assert.Equal(t, want, got)
			})
		}
	}
}

func never() []string {
	n := vocab.NeverRetryableTypes()
	sort.Strings(n)
	return n
}

func TestUnitClassOptions(t *testing.T) {
	env, p := newProbedEnv(t, interceptors.Options{}, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(ClassesWorkflow)
	require.NoError(t, env.GetWorkflowError())
	var got runResult
	require.NoError(t, env.GetWorkflowResult(&got))
	require.Len(t, got.Reports, 6)
	calls := p.Calls()
	require.Len(t, calls, 6)
	for i, r := range got.Reports {
		// The test environment leaves ActivityInfo.RetryPolicy empty: read
		// the retry policy the recorder saw scheduled.
		if rp := calls[i].Options.RetryPolicy; rp != nil {
			r.MaxAttempts = rp.MaximumAttempts
			r.NonRetryable = append([]string(nil), rp.NonRetryableErrorTypes...)
			sort.Strings(r.NonRetryable)
		}
		got.Reports[i] = r
	}
	assert.Equal(t, "model: Report", calls[0].Options.Summary, "the summary names the class and the activity")
	assert.Empty(t, calls[4].Options.Summary, "an untouched call gets no summary")
	want := []struct {
		stc, hb  time.Duration
		attempts int32
	}{{900 * time.Second, 60 * time.Second, 3}, {60 * time.Second, 0, 1}, {30 * time.Second, 0, 3}, {15 * time.Second, 0, 3}}
	for i, c := range vocab.Classes() {
		r := got.Reports[i]
		assert.Equal(t, want[i].stc, r.StartToClose, c)
		assert.Equal(t, want[i].hb, r.Heartbeat, c)
		assert.Equal(t, want[i].attempts, r.MaxAttempts, c)
		assert.Equal(t, never(), r.NonRetryable, c)
		assert.Equal(t, c, r.Class, "the class travels to the activity")
	}
	untagged := got.Reports[4]
	assert.Equal(t, 7*time.Second, untagged.StartToClose, "untagged without a default: untouched")
	assert.Zero(t, untagged.Heartbeat)
	assert.Equal(t, never(), untagged.NonRetryable, "untouched, but for the never-retryable types: no setting retries them, on any worker")
	assert.Zero(t, untagged.MaxAttempts, "the server's default attempts")
	assert.Empty(t, untagged.Class, "no kit call in the activity's context")

	callers := got.Reports[5]
	assert.Equal(t, 120*time.Second, callers.StartToClose, "the caller's StartToClose stays")
	assert.Equal(t, 12*time.Second, callers.Heartbeat, "the window is derived from it")
	assert.Equal(t, int32(5), callers.MaxAttempts, "the caller's retry policy stays")
	assert.Equal(t, append([]string{"MyError"}, never()...), sortedWithFirst(callers.NonRetryable, "MyError"), "and gains the never-retryable names")
}

func sortedWithFirst(types []string, first string) []string {
	out := []string{first}
	for _, t := range types {
		if t != first {
			out = append(out, t)
		}
	}
	return out
}

func TestUnitDefaultClassAndDeclarations(t *testing.T) {
	opts := interceptors.Options{
		DefaultClass: temporaladk.Memory,
		Activities:   map[string]temporaladk.Declaration{"Report": {Class: temporaladk.Model, Timeout: 120 * time.Second}},
	}
	env := newEnv(t, opts, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) ([]CallReport, error) {
		var declared, tagged CallReport
		if err := workflow.ExecuteActivity(ctx, Report, "declared").Get(ctx, &declared); err != nil {
			return nil, err
		}
		if err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Retrieval), Report, "tag wins").Get(ctx, &tagged); err != nil {
			return nil, err
		}
		return []CallReport{declared, tagged}, nil
	})
	require.NoError(t, env.GetWorkflowError())
	var got []CallReport
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, temporaladk.Model, got[0].Class, "declared at registration: untouched workflow code gets the policy")
	assert.Equal(t, 120*time.Second, got[0].StartToClose)
	assert.Equal(t, 12*time.Second, got[0].Heartbeat)
	assert.Equal(t, temporaladk.Retrieval, got[1].Class, "the tag on the context comes first")
	assert.Equal(t, 120*time.Second, got[1].StartToClose, "the declared timeout still applies")
	assert.Zero(t, got[1].Heartbeat, "RETRIEVAL has no heartbeat")
}

func TestUnitInvalidTagFailsTheCall(t *testing.T) {
	env := newEnv(t, interceptors.Options{}, &Activities{log: newAttemptLog()})
	env.ExecuteWorkflow(func(ctx workflow.Context) error {
		return workflow.ExecuteActivity(temporaladk.WithClass(ctx, "REASONING"), Report, "x").Get(ctx, nil)
	})
	require.ErrorContains(t, env.GetWorkflowError(), `tagged with class "REASONING"`)
}

func TestUnitEffectfulTool(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	tool := mustPolicy(t, temporaladk.Tool)
	tool.Retry.MaxAttempts = 3
	opts := interceptors.Options{
		Policies: policiesOf(tool),
		Activities: map[string]temporaladk.Declaration{
			"Book": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
		},
	}
	env := newEnv(t, opts, acts)
	env.ExecuteWorkflow(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "nokey"}, "")
	require.NoError(t, env.GetWorkflowError())
	assert.Len(t, acts.log.get("book:nokey"), 1, "an effectful tool failing transiently gets one attempt")

	env = newEnv(t, opts, acts)
	env.ExecuteWorkflow(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "key"}, "booking-42")
	require.NoError(t, env.GetWorkflowError())
	seen := acts.log.get("book:key")
	require.Len(t, seen, 3, "with a key: the policy's attempts")
	for i, s := range seen {
		assert.Equal(t, i+1, s.Attempt)
		assert.Equal(t, "booking-42", s.Key, "every attempt sees the same key")
	}
}

func TestUnitDerivedKey(t *testing.T) {
	acts := &Activities{log: newAttemptLog()}
	tool := mustPolicy(t, temporaladk.Tool)
	tool.Retry.MaxAttempts = 2
	opts := interceptors.Options{
		Policies: policiesOf(tool),
		Activities: map[string]temporaladk.Declaration{
			"Book": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "passenger"}, Input: Booking{}},
		},
	}
	env := newEnv(t, opts, acts)
	env.ExecuteWorkflow(BookWorkflow, Booking{Flight: "LH400", Passenger: "ada", Note: "derived"}, "")
	require.NoError(t, env.GetWorkflowError())
	seen := acts.log.get("book:derived")
	require.Len(t, seen, 2)
	assert.Regexp(t, "^[0-9a-f]{64}$", seen[0].Key)
	assert.Equal(t, seen[0].Key, seen[1].Key)
	assert.NotContains(t, seen[0].Key, "LH400")
}

// keyedOutcome is how a keyed call ended, as the workflow saw it.
type keyedOutcome struct {
	Type    string // the kit error's Type, "" for none
	Timeout bool   // a *temporal.TimeoutError is in the chain
}

// KeyedCallWorkflow calls activity (Book or Charge) with arg, under key when
// it is not empty, and with a retry policy of attempts when attempts > 0
// (none of the caller's otherwise).
func KeyedCallWorkflow(ctx workflow.Context, activity string, arg any, key string, attempts int32) (keyedOutcome, error) {
	opts := workflow.ActivityOptions{StartToCloseTimeout: time.Second}
	if attempts > 0 {
		opts.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: attempts, InitialInterval: 10 * time.Millisecond}
	}
	ctx = workflow.WithActivityOptions(ctx, opts)
	if key != "" {
		ctx = temporaladk.WithIdempotencyKey(ctx, key)
	}
	err := workflow.ExecuteActivity(ctx, activity, arg).Get(ctx, nil)
	var out keyedOutcome
	if kit, ok := temporaladk.AsError(temporaladk.FromApplicationError(err)); ok {
		out.Type = kit.Type()
	}
	var timeout *temporal.TimeoutError
	out.Timeout = errors.As(err, &timeout)
	return out, nil
}

// TestUnitIdempotencyKeyUnderTheDefaultToolPolicy holds what README and
// temporaladk.WithIdempotencyKey say a key does for an effectful tool: under
// the default TOOL policy (one attempt) it gives no retry; it reaches the
// activity; it makes a timeout of the attempt a plain timeout rather than an
// IndeterminateOutcomeError; and it lets a retry policy's attempts through,
// the caller's or the TOOL policy's, which without a key are cut to one.
func TestUnitIdempotencyKeyUnderTheDefaultToolPolicy(t *testing.T) {
	defaults := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"Book":   {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
		"Charge": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful},
	}}
	book := func(t *testing.T, opts interceptors.Options, note, key string, attempts int32) ([]attemptSeen, keyedOutcome) {
		t.Helper()
		acts := &Activities{log: newAttemptLog()}
		env := newEnv(t, opts, acts)
		env.RegisterWorkflow(KeyedCallWorkflow)
		env.ExecuteWorkflow(KeyedCallWorkflow, "Book", Booking{Flight: "LH400", Passenger: "ada", Note: note}, key, attempts)
		require.NoError(t, env.GetWorkflowError())
		var out keyedOutcome
		require.NoError(t, env.GetWorkflowResult(&out))
		return acts.log.get("book:" + note), out
	}

	t.Run("default TOOL policy: one attempt with or without a key", func(t *testing.T) {
		seen, out := book(t, defaults, "keyed", "booking-42", 0)
		require.Len(t, seen, 1, "the key gives no retry: the TOOL policy has one attempt")
		assert.Equal(t, "booking-42", seen[0].Key, "the activity receives the key")
		assert.Equal(t, temporaladk.TypeToolFailure, out.Type)

		seen, _ = book(t, defaults, "unkeyed", "", 0)
		require.Len(t, seen, 1)
		assert.Empty(t, seen[0].Key)
	})

	t.Run("the caller's retry policy: its attempts with a key, one without", func(t *testing.T) {
		seen, _ := book(t, defaults, "keyed", "booking-42", 3)
		assert.Len(t, seen, 3, "a key lets the caller's retry policy through")
		seen, _ = book(t, defaults, "unkeyed", "", 3)
		assert.Len(t, seen, 1, "without a key one attempt, whatever the retry policy says")
	})

	t.Run("the TOOL policy raised: its attempts with a key, one without", func(t *testing.T) {
		tool := mustPolicy(t, temporaladk.Tool)
		tool.Retry.MaxAttempts = 3
		tool.Retry.InitialInterval = 10 * time.Millisecond
		raised := defaults
		raised.Policies = policiesOf(tool)
		seen, _ := book(t, raised, "keyed", "booking-42", 0)
		assert.Len(t, seen, 3)
		seen, _ = book(t, raised, "unkeyed", "", 0)
		assert.Len(t, seen, 1)
	})

	t.Run("a timeout of a keyed call is a timeout, not an indeterminate outcome", func(t *testing.T) {
		acts := &Activities{log: newAttemptLog()}
		env := newEnv(t, defaults, acts)
		env.RegisterWorkflow(KeyedCallWorkflow)
		env.ExecuteWorkflow(KeyedCallWorkflow, "Charge", "charge-keyed", "charge-7", int32(0))
		require.NoError(t, env.GetWorkflowError())
		var out keyedOutcome
		require.NoError(t, env.GetWorkflowResult(&out))
		assert.Len(t, acts.log.get("charge-keyed"), 1)
		assert.True(t, out.Timeout, "the workflow sees the timeout: calling again with the key is safe")
		assert.Empty(t, out.Type, "no IndeterminateOutcomeError")
	})
}

// Meal is the second argument of SeatWithMeal.
type Meal struct {
	Passenger string `json:"passenger"`
	Choice    string `json:"choice"`
}

// SeatWithMeal is a two-argument tool that returns the key it was called
// with.
func SeatWithMeal(ctx context.Context, _ Booking, _ Meal) (string, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	return call.IdempotencyKey, nil
}

// SeatWithMealWorkflow calls SeatWithMeal with each meal for one booking
// and returns the keys.
func SeatWithMealWorkflow(ctx workflow.Context, b Booking, meals []Meal) ([]string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Second})
	var keys []string
	for _, m := range meals {
		var key string
		if err := workflow.ExecuteActivity(ctx, SeatWithMeal, b, m).Get(ctx, &key); err != nil {
			return nil, err
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// TestUnitKeyOverTwoArguments: a tool keyed by a field of each of its two
// arguments ("flight", "$2.passenger") gets one key per passenger on one
// flight, whatever else the arguments say.
func TestUnitKeyOverTwoArguments(t *testing.T) {
	opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"SeatWithMeal": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "$2.passenger"}, Input: Booking{}},
	}}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newEnvKit(t, env, opts)}})
	env.RegisterActivity(SeatWithMeal)
	env.RegisterWorkflow(SeatWithMealWorkflow)
	meals := []Meal{{"ada", "veg"}, {"ada", "fish"}, {"bo", "veg"}}
	env.ExecuteWorkflow(SeatWithMealWorkflow, Booking{Flight: "LH400", Note: "window"}, meals)
	require.NoError(t, env.GetWorkflowError())
	var keys []string
	require.NoError(t, env.GetWorkflowResult(&keys))
	require.Len(t, keys, 3)
	assert.Regexp(t, "^[0-9a-f]{64}$", keys[0])
	assert.Equal(t, keys[0], keys[1], "ada's seat is one call, whatever her meal")
	assert.NotEqual(t, keys[0], keys[2], "bo's seat is another")
}

// TestUnitKeyFieldMissingFromTheSecondArgument: a key field of the second
// argument that the call's second argument lacks gives the call no key: its
// future fails, never retried, naming the field, and the tool never runs.
func TestUnitKeyFieldMissingFromTheSecondArgument(t *testing.T) {
	opts := interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"SeatWithMeal": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"flight", "$2.seat"}, Input: Booking{}},
	}}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{Plugins: []worker.Plugin{newEnvKit(t, env, opts)}})
	ran := 0
	env.RegisterActivityWithOptions(func(ctx context.Context, b Booking, m Meal) (string, error) {
		ran++
		return SeatWithMeal(ctx, b, m)
	}, activity.RegisterOptions{Name: "SeatWithMeal"})
	env.RegisterWorkflow(SeatWithMealWorkflow)
	env.ExecuteWorkflow(SeatWithMealWorkflow, Booking{Flight: "LH400"}, []Meal{{"ada", "veg"}})
	err := env.GetWorkflowError()
	require.ErrorContains(t, err, `activity SeatWithMeal: temporaladk: no idempotency key: the arguments have no key field "$2.seat"`)
	var misconfigured *temporaladk.MisconfiguredError
	require.ErrorAs(t, temporaladk.FromApplicationError(err), &misconfigured)
	assert.Zero(t, ran, "the tool never ran")
}

// A key field that names no argument is refused at NewPlugin, naming it.
func TestUnitKeyFieldOfNoArgumentIsRefused(t *testing.T) {
	_, err := interceptors.NewPlugin(interceptors.Options{Activities: map[string]temporaladk.Declaration{
		"SeatWithMeal": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"$1.flight"}},
	}})
	require.ErrorContains(t, err, `"$1.flight": the first argument's fields take no prefix: write "flight"`)
	require.ErrorContains(t, err, "SeatWithMeal")
}
