package policies_test

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

func ExampleActivityPolicyFor() {
	// A reasoning call that declared ten minutes: the heartbeat window follows it.
	p, err := policies.ActivityPolicyFor(temporaladk.Model, 10*time.Minute, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.StartToClose, p.Heartbeat, p.Retry.MaxAttempts)

	// A short one: the window stays inside the activity.
	p, _ = policies.ActivityPolicyFor(temporaladk.Model, 8*time.Second, nil)
	fmt.Println(p.StartToClose, p.Heartbeat)
	// Output:
	// 10m0s 1m0s 3
	// 8s 4s
}

func ExampleActivityPolicy_Retryable() {
	p, _ := policies.Default(temporaladk.Model)
	p.Retry.MaxAttempts = 9
	fmt.Println(p.Retryable(&temporaladk.GuardrailViolationError{Reason: "no"}))
	fmt.Println(p.Retryable(&temporaladk.ProviderError{StatusCode: 503}))
	fmt.Println(p.Retryable(errors.New("outside the kit")))
	// Output:
	// false
	// true
	// false
}

func ExampleActivityPolicy_Validate() {
	p, _ := policies.Default(temporaladk.Model)
	p.Heartbeat = 20 * time.Minute
	fmt.Println(p.Validate())
	// Output:
	// policies: ActivityPolicy.Heartbeat (20m0s) is not shorter than StartToClose (15m0s): a heartbeat window wider than the activity is not a timeout
}

func ExampleAttemptsForTool() {
	p, _ := policies.Default(temporaladk.Retrieval)
	fmt.Println(policies.AttemptsForTool(p, temporaladk.ReadOnly, false))
	fmt.Println(policies.AttemptsForTool(p, temporaladk.Effectful, false))
	fmt.Println(policies.AttemptsForTool(p, temporaladk.Effectful, true))
	fmt.Println(policies.AttemptsForTool(p, temporaladk.Undeclared, false))
	// Output:
	// 3
	// 1
	// 3
	// 1
}

func ExampleRetryConfig_FullJitter() {
	p, _ := policies.Default(temporaladk.Model)
	// The random number is drawn by the caller, inside the activity.
	wait, _ := p.Retry.FullJitter(3, 0.5) // window after the third attempt: 4s
	fmt.Println(wait)
	// Output:
	// 2s
}

func ExampleFit() {
	d := policies.Fit(temporaladk.RetryDecision{Requested: 30 * time.Second, Wait: 30 * time.Second}, 10*time.Second, 8*time.Second)
	fmt.Println(d.Wait, d.Truncated)
	fmt.Println(d.Reason)
	// Output:
	// 2s true
	// wait of 30s cut to 2s: that is what is left of the 10s deadline, no time for another attempt
}

func ExampleApply() {
	plan, _, _ := policies.PlanCall(policies.Call{ActivityType: "Chat", Tag: temporaladk.Model})
	// The caller set a StartToClose: it stays, and the window is derived from it.
	opts, _ := policies.Apply(workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute}, plan)
	fmt.Println(opts.StartToCloseTimeout, opts.HeartbeatTimeout, opts.RetryPolicy.MaximumAttempts)
	fmt.Println(opts.RetryPolicy.NonRetryableErrorTypes)
	// Output:
	// 2m0s 12s 3
	// [TemporaladkSchemaViolation TemporaladkGuardrailViolation TemporaladkGuardrailEvaluation TemporaladkBudgetExceeded TemporaladkApprovalDenied TemporaladkScopeEscalation]
}
