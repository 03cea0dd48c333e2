// Package approval is what package approvals shares with the kit's
// interceptors and the conversation package and with no one else: the
// per-call request an approvals.WithApproval context carries, the run's
// approval book a context carries for conversation.ContinueAsNew, the
// names under which pending calls cross continue-as-new, and the digest
// that binds an approval to a call's arguments.
package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/internal/idemkey"
)

// Call is the approval the workflow asks for, for the calls made on a
// context: how long they wait (zero: the declaration's, else the default)
// and the summary a person reads ("" for the kit's own, which names no
// argument value).
type Call struct {
	Timeout time.Duration
	Summary string
	// Principals, Required and Open are the call's approvers
	// (approvals.Approvers); all zero for the declaration's.
	Principals []string
	Required   int
	Open       bool
}

type callKey struct{}

// With returns ctx on which every activity call waits for an approval.
func With(ctx workflow.Context, c Call) workflow.Context {
	return workflow.WithValue(ctx, callKey{}, c)
}

// From returns the approval ctx asks for, and whether it asks for one.
func From(ctx workflow.Context) (Call, bool) {
	if ctx == nil {
		return Call{}, false
	}
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// CarryChangeID versions carrying a run's pending approvals across
// continue-as-new (workflow.GetVersion): a run that records it hands the
// calls still waiting for people to the next run in its start header
// (CarriedHeaderKey), and conversation.ContinueAsNew no longer waits for
// them. It is recorded only by a run that continues as new while a call
// waits, so a history recorded before it replays as it ran: waiting.
const CarryChangeID = "temporaladk/approval/carry"

// CarriedHeaderKey is the Temporal header field of a run's start (and of
// the continue-as-new that begins it) in which the calls that waited for
// approval in the run before cross into it, as JSON (the kit's
// wire.CarriedApprovals): the last call number the chain used, each call
// with its approvers, approvals so far (signed), deadline and digest, and
// the calls that lapsed.
const CarriedHeaderKey = "temporaladk-approvals"

// Book is the run's record of the calls waiting for a decision.
type Book interface {
	// Pending is how many calls wait for a decision, or for the
	// scheduling that follows it.
	Pending() int
	// Deciding is how many calls are decided and not yet scheduled or
	// ended: a run that continues as new waits for them, since only an
	// undecided call is carried.
	Deciding() int
}

type bookKey struct{}

// WithBook returns ctx carrying the run's book.
func WithBook(ctx workflow.Context, b Book) workflow.Context {
	return workflow.WithValue(ctx, bookKey{}, b)
}

// BookFrom returns the run's book, or nil on a context without one.
func BookFrom(ctx workflow.Context) Book {
	if ctx == nil {
		return nil
	}
	b, _ := ctx.Value(bookKey{}).(Book)
	return b
}

// Pending is how many calls of the run wait for a decision: 0 on a worker
// without the kit.
func Pending(ctx workflow.Context) int {
	if b := BookFrom(ctx); b != nil {
		return b.Pending()
	}
	return 0
}

// Deciding is how many calls of the run are decided and not yet scheduled
// or ended: 0 on a worker without the kit.
func Deciding(ctx workflow.Context) int {
	if b := BookFrom(ctx); b != nil {
		return b.Deciding()
	}
	return 0
}

// Digest is the SHA-256, in hex, of the canonical form of a call's
// arguments (idemkey.Canonicalize of the argument list): equal arguments,
// however spelled (map order, number form), have the same digest. It holds
// no argument value.
func Digest(args []any) (string, error) {
	if args == nil {
		args = []any{}
	}
	form, err := idemkey.Canonicalize(args)
	if err != nil {
		return "", fmt.Errorf("the arguments have no canonical form: %w", err)
	}
	sum := sha256.Sum256(form)
	return hex.EncodeToString(sum[:]), nil
}
