package wire

import (
	"time"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/temporaladk"
)

// ApprovalHeaderKey is the Temporal header field that carries an approved
// call's grant (ApprovalGrant) from the workflow to the activity.
const ApprovalHeaderKey = "temporaladk-approval"

// ApprovalGrant is what the workflow side hands the activity side of an
// approved call, in the call's header ApprovalHeaderKey: the call it was
// given for, the approvers recorded for it, and the accepted approvals.
// The activity side recomputes the digest of the arguments it received
// and checks every field against its own activity.Info, and each signed
// approval against its worker's Verifier, before the user's code runs.
type ApprovalGrant struct {
	// WorkflowID, RunID and Chain name the run that granted the call.
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Chain      string `json:"chain"`
	// Call is the call's approval ID ("approval-N"); ActivityID the
	// activity ID it was scheduled with, which its signed approvals name
	// ("" for a local activity; the activity side refuses "" for any
	// other).
	Call       string `json:"call"`
	ActivityID string `json:"activity_id,omitempty"`
	// ActivityType and Digest are the activity and the digest of the
	// arguments approved.
	ActivityType string `json:"activity_type"`
	Digest       string `json:"digest"`
	// Approvers were recorded for the call when it began to wait.
	Approvers approvals.Approvers `json:"approvers"`
	// Approvals are the accepted approvals, as the run accepted them.
	Approvals []approvals.Request `json:"approvals"`
	// Runs are, for a call carried across continue-as-new, the runs it
	// waited in: RunID (where it began to wait, which its approvals name)
	// first, each the continuation of the one before, and the run that
	// scheduled it last. Nil for a call scheduled in the run it began to
	// wait in. The activity side reads each run's history: the chain must
	// be unbroken, and the activity ID scheduled once across it.
	Runs []string `json:"runs,omitempty"`
}

// CarriedApprovals is what a run hands the next, in its start header
// (approval.CarriedHeaderKey), of the calls that waited for approval when
// it continued as new.
type CarriedApprovals struct {
	// Seq is the last call number ("approval-N") the chain used: the next
	// run numbers its own calls after it, so that a call ID, and the
	// activity ID its approvals name, stay unique across the runs a call
	// is carried through.
	Seq int `json:"seq"`
	// Calls are the calls still waiting for people, in the order they were
	// made.
	Calls []CarriedCall `json:"calls,omitempty"`
	// Lapsed are the calls carried into the run that ended, which it never
	// made again: they are not carried further, and never run.
	Lapsed []LapsedCall `json:"lapsed,omitempty"`
}

// CarriedCall is one call waiting for people, carried into the next run:
// everything its decisions are bound to (approvals.Statement), its
// approvers and approvals so far, and its deadline. Its arguments are not
// carried: the next run's workflow code makes the call again, with
// arguments of the same digest.
type CarriedCall struct {
	Call         string              `json:"call"`
	ActivityID   string              `json:"activity_id,omitempty"`
	ActivityType string              `json:"activity_type"`
	Local        bool                `json:"local,omitempty"`
	Class        temporaladk.Class   `json:"class,omitempty"`
	Digest       string              `json:"digest"`
	Summary      string              `json:"summary"`
	Since        time.Time           `json:"since"`
	Deadline     time.Time           `json:"deadline"`
	Approvers    approvals.Approvers `json:"approvers"`
	Approvals    []approvals.Request `json:"approvals,omitempty"`
	// Runs are the runs the call waited in, the one it began to wait in
	// (which its decisions name) first, the run that hands it over last.
	Runs []string `json:"runs"`
	// Flag says that the run keeps approvals.SearchAttribute true while
	// the call waits.
	Flag bool `json:"flag,omitempty"`
}

// LapsedCall is a call carried into a run that continued as new without
// making it again.
type LapsedCall struct {
	Call   string   `json:"call"`
	Digest string   `json:"digest"`
	Runs   []string `json:"runs"`
}
