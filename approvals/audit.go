package approvals

import (
	"context"
	"fmt"
	"slices"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/internal/approval"
)

// AuditEntry is one decision a run accepted, as its history records it:
// the accepted Update UpdateName. A decision the validator rejected never
// entered history and is not here.
type AuditEntry struct {
	// WorkflowID and RunID name the run that accepted the decision.
	WorkflowID string
	RunID      string
	// CallRunID is the run the decided call began to wait in, which its
	// signed statement names (Pending.RunID): RunID, unless the call was
	// carried across continue-as-new into RunID.
	CallRunID string
	// Runs are the runs of the chain the decided call waited in, CallRunID
	// first, as the runs' start headers record its carrying: one run for a
	// call that was never carried.
	Runs []string
	// EventID is the WorkflowExecutionUpdateAccepted event's ID in that
	// run's history, and Time the server's time of it.
	EventID int64
	Time    time.Time
	// UpdateID is the Update's ID.
	UpdateID string
	// Request is the decision as it was sent: call, digest, who (By),
	// approve or deny, reason, and for a signed decision its expiry, key
	// and signature.
	Request Request
	// Applied reports whether the Update's handler completed without
	// error; Failure is its error message otherwise (a decision that
	// raced another for a call already decided), or "" while the Update
	// has not completed.
	Applied bool
	Failure string
}

// AuditOptions configure Audit.
type AuditOptions struct {
	// DataConverter decodes the recorded Update arguments. If not set, the
	// SDK's default; give the client's when it has its own (a codec).
	DataConverter converter.DataConverter
}

// Audit reads who decided what, when and with which key, for the chain of
// runs of workflowID (each run it continued as new from, first to last),
// from the accepted approval Updates in their histories: the audit trail is
// the history, nothing kept beside it. For a call carried across
// continue-as-new, each entry names the run that accepted the decision
// (RunID), the run the call began to wait in (CallRunID) and every run it
// waited in (Runs), which the runs' start headers record.
func Audit(ctx context.Context, c client.Client, workflowID string, opts AuditOptions) ([]AuditEntry, error) {
	if err := checkTarget(c, workflowID); err != nil {
		return nil, fmt.Errorf("approvals: Audit: %w", err)
	}
	dc := opts.DataConverter
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
	if err != nil {
		return nil, fmt.Errorf("approvals: Audit of workflow %q: %w", workflowID, err)
	}
	var (
		runs    [][]AuditEntry
		carried []map[string][]string
		ids     []string
	)
	runID := desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	for {
		entries, into, previous, id, err := auditRun(ctx, c, dc, workflowID, runID)
		if err != nil {
			return nil, err
		}
		runs = append(runs, entries)
		carried = append(carried, into)
		ids = append(ids, runID)
		if previous == "" {
			break
		}
		if len(runs) > 100000 {
			return nil, fmt.Errorf("approvals: Audit of workflow %q: the chain did not end after %d runs (at run %s)", workflowID, len(runs), id)
		}
		runID = previous
	}
	slices.Reverse(runs)
	slices.Reverse(carried)
	slices.Reverse(ids)
	// waited holds, by the run a call began in and its ID, the runs it
	// waited in: each run that a call was carried into lists, in its start
	// header, the runs before it.
	waited := map[[2]string][]string{}
	for k, into := range carried {
		for call, before := range into {
			waited[[2]string{before[0], call}] = append(slices.Clone(before), ids[k])
		}
	}
	for k, entries := range runs {
		for j := range entries {
			e := &entries[j]
			e.CallRunID = e.RunID
			if before, ok := carried[k][e.Request.Call]; ok {
				e.CallRunID = before[0]
			}
			e.Runs = slices.Clone(waited[[2]string{e.CallRunID, e.Request.Call}])
			if e.Runs == nil {
				e.Runs = []string{e.RunID}
			}
		}
	}
	return slices.Concat(runs...), nil
}

// carriedHeader is the part of a run's start header
// approval.CarriedHeaderKey that Audit reads: each call carried into the
// run, with the runs it waited in before.
type carriedHeader struct {
	Calls []struct {
		Call string   `json:"call"`
		Runs []string `json:"runs"`
	} `json:"calls"`
}

// auditRun reads the decisions of one run, the calls carried into it (by
// call, the runs each waited in before), and the run it continued from.
func auditRun(ctx context.Context, c client.Client, dc converter.DataConverter, workflowID, runID string) ([]AuditEntry, map[string][]string, string, string, error) {
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var (
		entries  []AuditEntry
		previous string
		byUpdate = map[string]int{}
		into     = map[string][]string{}
	)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, nil, "", runID, fmt.Errorf("approvals: Audit of workflow %q run %q: reading its history: %w", workflowID, runID, err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			a := ev.GetWorkflowExecutionStartedEventAttributes()
			previous = a.GetContinuedExecutionRunId()
			if p := a.GetHeader().GetFields()[approval.CarriedHeaderKey]; p != nil {
				var h carriedHeader
				if err := converter.GetDefaultDataConverter().FromPayload(p, &h); err != nil {
					return nil, nil, "", runID, fmt.Errorf("approvals: Audit of workflow %q run %q: its start header %q does not decode: %w", workflowID, runID, approval.CarriedHeaderKey, err)
				}
				for _, call := range h.Calls {
					if len(call.Runs) > 0 {
						into[call.Call] = call.Runs
					}
				}
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			e, ok, err := acceptedDecision(dc, ev)
			if err != nil {
				return nil, nil, "", runID, fmt.Errorf("approvals: Audit of workflow %q run %q: event %d: %w", workflowID, runID, ev.GetEventId(), err)
			}
			if ok {
				e.WorkflowID, e.RunID = workflowID, runID
				byUpdate[e.UpdateID] = len(entries)
				entries = append(entries, e)
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
			a := ev.GetWorkflowExecutionUpdateCompletedEventAttributes()
			if i, ok := byUpdate[a.GetMeta().GetUpdateId()]; ok {
				if f := a.GetOutcome().GetFailure(); f != nil {
					entries[i].Failure = f.GetMessage()
				} else {
					entries[i].Applied = true
				}
			}
		}
	}
	return entries, into, previous, runID, nil
}

// acceptedDecision decodes an accepted Update, and reports whether it is
// an approval decision.
func acceptedDecision(dc converter.DataConverter, ev *historypb.HistoryEvent) (AuditEntry, bool, error) {
	a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes()
	req := a.GetAcceptedRequest()
	if req.GetInput().GetName() != UpdateName {
		return AuditEntry{}, false, nil
	}
	var r Request
	if err := dc.FromPayloads(req.GetInput().GetArgs(), &r); err != nil {
		return AuditEntry{}, false, fmt.Errorf("the decision does not decode: %w", err)
	}
	return AuditEntry{EventID: ev.GetEventId(), Time: ev.GetEventTime().AsTime(), UpdateID: req.GetMeta().GetUpdateId(), Request: r}, true, nil
}
