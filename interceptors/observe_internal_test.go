package interceptors

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// spending keeps the reservations and settlements it is told.
type spending struct {
	observe.Base
	reserved []observe.Reservation
	settled  []observe.Settlement
}

func (s *spending) TokensReserved(_ workflow.Context, r observe.Reservation) {
	s.reserved = append(s.reserved, r)
}

func (s *spending) UsageSettled(_ workflow.Context, st observe.Settlement) {
	s.settled = append(s.settled, st)
}

// TestNotifierPassesReservationsAndSettlements: the notifier's methods the
// ledger calls for tokens hand the observer what they are given, in
// workflow code outside replay.
func TestNotifierPassesReservationsAndSettlements(t *testing.T) {
	t.Parallel()
	rec := &spending{}
	n := newNotifier(rec)
	price := &spend.Price{Input: 3, Output: 15}
	r := observe.Reservation{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 2, Model: "m", MaxTokens: 100, Price: price}
	s := observe.Settlement{ActivityType: "Chat", Class: temporaladk.Model, Call: "call-1", Attempt: 2, Usage: &providers.Usage{InputTokens: 10, OutputTokens: 5}, Succeeded: true}
	var suite sdktestsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		n.tokensReserved(ctx, r)
		n.usageSettled(ctx, s)
		return nil
	}, workflow.RegisterOptions{Name: "Spend"})
	env.ExecuteWorkflow("Spend")
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, []observe.Reservation{r}, rec.reserved)
	assert.Equal(t, []observe.Settlement{s}, rec.settled)
}

// TestNotifierWithoutObserverWatchesNothing: a kit without an observer
// starts no coroutine for CallEnded.
func TestNotifierWithoutObserverWatchesNothing(t *testing.T) {
	t.Parallel()
	assert.False(t, newNotifier(nil).given)
	assert.True(t, newNotifier(observe.Base{}).given)
}

// TestCallEndOf: how a call ended is read from the error its future
// resolved with.
func TestCallEndOf(t *testing.T) {
	t.Parallel()
	app := temporal.NewApplicationError("boom", "MyError")
	refused := &temporaladk.BudgetExceededError{Breached: "attempts", Limit: 3}
	timeout := temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
	for _, tc := range []struct {
		name     string
		err      error
		outcome  observe.CallOutcome
		typeName string
	}{
		{"completed", nil, observe.CallCompleted, ""},
		{"application error", app, observe.CallFailed, "MyError"},
		{"kit error", refused, observe.CallFailed, temporaladk.TypeBudgetExceeded},
		{"timeout", timeout, observe.CallTimedOut, "StartToClose"},
		{"indeterminate", &temporaladk.IndeterminateOutcomeError{Tool: "Book", Cause: timeout}, observe.CallTimedOut, temporaladk.TypeIndeterminateOutcome},
		{"canceled", temporal.NewCanceledError(), observe.CallCanceled, ""},
		{"plain", errors.New("plain"), observe.CallFailed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			end := callEndOf(tc.err, 2)
			assert.Equal(t, tc.outcome, end.Outcome)
			assert.Equal(t, tc.typeName, end.ErrorType)
			assert.Equal(t, 2, end.Attempts)
			assert.Equal(t, tc.err, end.Err)
		})
	}
}

// TestApprovalOfCopiesItsApprovers: a call with named approvers is
// described with a copy of them, and open approvers with none; a decision
// names who decided, but not for an expiry.
func TestApprovalOfCopiesItsApprovers(t *testing.T) {
	t.Parallel()
	named := &waitingCall{info: approvals.Pending{Call: "approval-1", Approvers: approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 2}}}
	a := approvalOf(named)
	assert.Equal(t, []string{"ana", "bo"}, a.Principals)
	assert.Equal(t, 2, a.Required)
	a.Principals[0] = "eve"
	assert.Equal(t, "ana", named.info.Approvers.Principals[0], "the book's approvers are not shared")
	open := approvalOf(&waitingCall{info: approvals.Pending{Approvers: approvals.Approvers{Open: true}}})
	assert.Nil(t, open.Principals)
	assert.Equal(t, 1, open.Required, "one approval at least")

	named.req = approvals.Request{Decision: approvals.Decision{By: "bo"}}
	named.approvals = []approvals.Request{{Decision: approvals.Decision{By: "ana"}}, named.req}
	granted := decisionOf(named, observe.ApprovalGranted, "", time.Minute)
	assert.Equal(t, "bo", granted.By)
	assert.Equal(t, []string{"ana", "bo"}, granted.Approvals)
	assert.Equal(t, time.Minute, granted.Waited)
	assert.Empty(t, decisionOf(named, observe.ApprovalExpired, "timed out", time.Hour).By)
}
