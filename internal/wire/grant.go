package wire

import "github.com/temporaladk/adk-go/approvals"

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
}
