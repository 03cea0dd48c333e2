package testsuite

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/approvals"
)

// signedExpiry is how long after the workflow's time a decision Approve or
// Deny signs stays valid: the run validates it at once.
const signedExpiry = time.Hour

// Approve approves, by the approver by, every call waiting for approval
// after the given workflow time has passed since the workflow started that
// which names: an activity type (all its waiting calls) or a call
// ("approval-N", the Nth call of the run that waited). It lists the
// waiting calls through the kit's Query (approvals.QueryName) and sends
// the kit's Update (approvals.UpdateName) for each, with the call and
// digest the run listed, so the test never rebuilds the tool's arguments:
// unsigned where the call's approvers are open, else signed by the signer
// in Signers whose principal is by. Register it before ExecuteWorkflow:
//
//	env.Approve(t, time.Minute, "BookSeat", "ana")
//	env.ExecuteWorkflow(Trip, seats)
//
// What does not happen is a test error: no call that which names waiting
// then, a call that needs a signature by a principal without a signer, a
// decision the run rejects, and a decision the workflow ended before. Bad
// arguments (after not positive, which or by empty) fail the test at once,
// naming what is wrong.
func (e *KitTestEnvironment) Approve(t testing.TB, after time.Duration, which, by string) {
	if t != nil {
		t.Helper()
	}
	e.decide(t, decision{verb: "Approve", after: after, which: which, by: by, approve: true})
}

// Deny denies, as Approve approves: the calls which names end with a
// *temporaladk.ApprovalDeniedError carrying by and reason, and never run.
func (e *KitTestEnvironment) Deny(t testing.TB, after time.Duration, which, by, reason string) {
	if t != nil {
		t.Helper()
	}
	e.decide(t, decision{verb: "Deny", after: after, which: which, by: by, reason: reason})
}

// decision is one Approve or Deny.
type decision struct {
	verb              string
	after             time.Duration
	which, by, reason string
	approve           bool
}

func (d decision) String() string {
	return fmt.Sprintf("KitTestEnvironment.%s(%v, %q, %q)", d.verb, d.after, d.which, d.by)
}

// check names what is wrong with d on e.
func (d decision) check(e *KitTestEnvironment) error {
	switch {
	case e == nil || e.TestWorkflowEnvironment == nil:
		return errors.New("the environment is nil: build it with NewKitTestEnvironment")
	case d.after <= 0:
		return fmt.Errorf("after is %v: it must be positive, a workflow time by which the call waits (time.Minute, say)", d.after)
	case strings.TrimSpace(d.which) == "":
		return errors.New("which is empty: name an activity type, or a call (approval-N)")
	case strings.TrimSpace(d.by) == "":
		return errors.New("by is empty: name who decides")
	}
	return nil
}

// decide checks d and registers the callback that sends it.
func (e *KitTestEnvironment) decide(t testing.TB, d decision) {
	if t == nil {
		panic(fmt.Sprintf("testsuite: %s: t is nil: pass the test's *testing.T, which reports what did not happen", d))
	}
	t.Helper()
	if err := d.check(e); err != nil {
		t.Fatalf("testsuite: %s: %v", d, err)
		return
	}
	var ran atomic.Bool
	t.Cleanup(func() {
		if !ran.Load() {
			t.Errorf("testsuite: %s never ran: the workflow ended, or was not started, before %v of its time had passed", d, d.after)
		}
	})
	// The environment's main loop is the one thread-safe way into it.
	e.RegisterDelayedCallback(func() {
		ran.Store(true)
		e.send(t, d)
	}, d.after)
}

// send lists the waiting calls and sends d on each that d.which names.
func (e *KitTestEnvironment) send(t testing.TB, d decision) {
	v, err := e.QueryWorkflow(approvals.QueryName)
	if err != nil {
		t.Errorf("testsuite: %s: listing the calls waiting for approval (Query %s): %v", d, approvals.QueryName, err)
		return
	}
	var pending []approvals.Pending
	if err := v.Get(&pending); err != nil {
		t.Errorf("testsuite: %s: decoding the calls waiting for approval: %v", d, err)
		return
	}
	var named []approvals.Pending
	for _, p := range pending {
		if p.Call == d.which || p.ActivityType == d.which {
			named = append(named, p)
		}
	}
	if len(named) == 0 {
		t.Errorf("testsuite: %s: no call waiting for approval is %q or a call of it; waiting: %s", d, d.which, describePending(pending))
		return
	}
	for _, p := range named {
		req, err := e.request(p, d)
		if err != nil {
			t.Errorf("testsuite: %s: %v", d, err)
			continue
		}
		call := p.Call + " (" + p.ActivityType + ")"
		e.UpdateWorkflow(approvals.UpdateName, "", &sdktestsuite.TestUpdateCallback{
			OnAccept: func() {},
			OnReject: func(err error) {
				t.Errorf("testsuite: %s: the run rejected the decision on %s: %v", d, call, err)
			},
			OnComplete: func(_ any, err error) {
				if err != nil {
					t.Errorf("testsuite: %s: the decision on %s failed: %v", d, call, err)
				}
			},
		}, req)
	}
}

// request is d's decision on p: unsigned for open approvers, else signed
// by the signer of d.by.
func (e *KitTestEnvironment) request(p approvals.Pending, d decision) (approvals.Request, error) {
	if p.Approvers.Open {
		return approvals.Request{Decision: approvals.Decision{Call: p.Call, Digest: p.Digest, By: d.by, Reason: d.reason}, Approve: new(d.approve)}, nil
	}
	var signer *approvals.Signer
	for _, s := range e.Signers {
		if s != nil && s.Principal() == d.by {
			signer = s
			break
		}
	}
	if signer == nil {
		return approvals.Request{}, fmt.Errorf("call %s (%s) needs a decision signed by one of %q, and KitTestEnvironment.Signers has no signer for %q: add one (approvals.NewSigner) whose public key the kit's Verifier holds",
			p.Call, p.ActivityType, p.Approvers.Principals, d.by)
	}
	expires := e.Now().Add(signedExpiry)
	if d.approve {
		return signer.Approve(p, d.reason, expires)
	}
	return signer.Deny(p, d.reason, expires)
}

// describePending lists the waiting calls for an error message.
func describePending(ps []approvals.Pending) string {
	if len(ps) == 0 {
		return "none"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Call + " (" + p.ActivityType + ")"
	}
	return strings.Join(parts, ", ")
}
