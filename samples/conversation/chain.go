package main

import (
	"errors"
	"fmt"
	"os"

	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/observe"
	kithistory "github.com/temporaladk/adk-go/observe/recorded"
	"github.com/temporaladk/adk-go/temporaladk"
)

// RunRecord is one run of the conversation's chain, as its history (and its
// children's) shows it.
type RunRecord struct {
	// Number is the run's place in the chain, from 1; RunID its run ID.
	Number int
	RunID  string
	// Input is the run's input: the turns taken before it.
	Input Input
	// Events is the length of its history.
	Events int
	// StartSpent, StartLimit and StartPoolUsed are the budgets as the
	// run's start header carried them in (recorded.Run Carried):
	// zero spent and the input's ceiling for the first run, which carries
	// none.
	StartSpent, StartLimit, StartPoolUsed int
	// FirstAttempts is the run's own calls scheduled under the budget:
	// each first attempt is charged in workflow code before it is
	// scheduled. RetryCharges is the retries of its own calls granted
	// through the charge Update; ChildCharges the attempts of its
	// children granted there; Refusals the charges refused.
	FirstAttempts, RetryCharges, ChildCharges, Refusals int
	// Updates is the Updates the run accepted; ChargeUpdates those that
	// were the kit's charges.
	Updates, ChargeUpdates int
	// OwnAttempts is the attempts of the run's own calls that ran;
	// OutOfUpdates the calls that failed because the run could take no
	// charge at all (temporaladk.TypeRunOutOfUpdates, TypeBudgetClosed).
	OwnAttempts, OutOfUpdates int
	// Children are the sub-agents the run started.
	Children []ChildRecord
	// ContinuedAsNew is set when the run continued as new; CarriedSpent
	// and CarriedPoolUsed are then what its continue-as-new header
	// handed the next run. Result is the last run's result.
	ContinuedAsNew  bool
	CarriedSpent    int
	CarriedPoolUsed int
	Result          *Result
	// History is the run's history, for recording.
	History *historypb.History
	// childCharged is the highest attempt the run's charges granted each
	// call of its children, by the call's name in its budgets.
	childCharged map[string]int
}

// EndSpent is the budget's spent at the run's end, computed from its
// history: what it started with, plus every attempt charged in the run.
func (r *RunRecord) EndSpent() int {
	return r.StartSpent + r.FirstAttempts + r.RetryCharges + r.ChildCharges
}

// Attempts is the attempts that ran in the run: its own and its children's.
func (r *RunRecord) Attempts() int {
	n := r.OwnAttempts
	for _, c := range r.Children {
		n += c.Attempts
	}
	return n
}

// ChildRecord is a sub-agent a run started.
type ChildRecord struct {
	// WorkflowID and RunID name the child's run.
	WorkflowID, RunID string
	// Delegation is the name the parent's ledger charged it under.
	Delegation string
	// Attempts is the attempts of its calls that ran, from its history;
	// Charged the attempts the parent's charge Updates granted for them.
	Attempts, Charged int
	// OutOfUpdates is the child's calls that failed because the parent
	// run could take no charge at all.
	OutOfUpdates int
	// OwnerChecked is true when every call in the child's history named
	// the parent run's ledger in its header.
	OwnerChecked bool
	History      *historypb.History
}

var dc = converter.GetDefaultDataConverter()

// ReadChain reads the conversation's chain from the histories
// testsuite.RecordFamily recorded of workflowID, files[0] being its first
// run: each run's figures and those of the sub-agents it started,
// following every continue-as-new to the run it began, until a run that
// closed otherwise. The report is read from the very files that are
// replayed. A run is known by the run ID its history was recorded under
// (its first event's).
func ReadChain(workflowID string, files []string) ([]*RunRecord, error) {
	if len(files) == 0 {
		return nil, errors.New("conversation: no history was recorded")
	}
	byRun := make(map[string]*historypb.History, len(files))
	var first string
	for i, f := range files {
		h, err := readHistory(f)
		if err != nil {
			return nil, fmt.Errorf("conversation: %w", err)
		}
		runID := h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId()
		byRun[runID] = h
		if i == 0 {
			first = runID
		}
	}
	var runs []*RunRecord
	runID := first
	for n := 1; runID != ""; n++ {
		h, ok := byRun[runID]
		if !ok || n > len(files) {
			return runs, fmt.Errorf("conversation: run %d (%s) is not among the %d recorded histories", n, runID, len(files))
		}
		r, next, err := readRun(h)
		if err != nil {
			return runs, fmt.Errorf("conversation: run %d (%s): %w", n, runID, err)
		}
		r.Number, r.RunID = n, runID
		for i := range r.Children {
			ch := &r.Children[i]
			if ch.History, ok = byRun[ch.RunID]; !ok {
				return runs, fmt.Errorf("conversation: sub-agent %s (%s) is not among the recorded histories", ch.WorkflowID, ch.RunID)
			}
			childRun, err := kithistory.Read(ch.History.GetEvents())
			if err != nil {
				return runs, fmt.Errorf("conversation: sub-agent %s: %w", ch.WorkflowID, err)
			}
			st := readAttempts(childRun)
			ch.Attempts, ch.OutOfUpdates = st.ran, st.outOfUpdates
			ch.OwnerChecked = len(st.owners) > 0
			for _, o := range st.owners {
				if o.WorkflowID != workflowID || o.RunID != runID || o.Delegation != ch.Delegation {
					ch.OwnerChecked = false
				}
				// The parent's charges of the child's call, by the name
				// the call's header gives it in the parent's budgets.
				ch.Charged += r.childCharged[o.Call]
				r.ChildCharges += r.childCharged[o.Call]
			}
		}
		runs = append(runs, r)
		runID = next
	}
	return runs, nil
}

// readHistory reads a history file as the SDK's replayer does.
func readHistory(path string) (*historypb.History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(h.GetEvents()) == 0 || h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes() == nil {
		return nil, fmt.Errorf("%s: the history does not begin with WorkflowExecutionStarted", path)
	}
	return h, nil
}

// readRun reads one run of the conversation from its history; next is the
// run it continued as new to, or "".
func readRun(h *historypb.History) (r *RunRecord, next string, err error) {
	events := h.GetEvents()
	r = &RunRecord{History: h, Events: len(events)}
	run, err := kithistory.Read(events)
	if err != nil {
		return nil, "", err
	}
	start := events[0].GetWorkflowExecutionStartedEventAttributes()
	if err := dc.FromPayloads(start.GetInput(), &r.Input); err != nil {
		return nil, "", fmt.Errorf("the run's input: %w", err)
	}
	r.StartLimit = r.Input.Ceiling
	if carried := run.Carried; carried != nil {
		b, has := carried.Attempts[BudgetName]
		if !has {
			return nil, "", fmt.Errorf("the start header carries no budget %q", BudgetName)
		}
		r.StartSpent, r.StartLimit, r.StartPoolUsed = int(b.Spent), int(b.Limit), int(carried.Retries[PoolName].Spent)
	}
	st := readAttempts(run)
	r.OwnAttempts, r.OutOfUpdates = st.ran, st.outOfUpdates
	r.Updates, r.ChargeUpdates, r.Refusals = run.Updates, run.ChargeUpdates, len(run.Refusals)
	// Charges: the highest attempt granted per call, as the ledger keeps it.
	// A call the run did not schedule is a child's, charged here.
	own := map[string]int{}
	for _, c := range run.Calls {
		if c.Budget != "" {
			r.FirstAttempts++
			own[c.Budget] = 1
		}
	}
	r.childCharged = map[string]int{}
	for _, c := range run.Charges {
		if _, mine := own[c.Call]; mine {
			own[c.Call] = max(own[c.Call], c.Attempt)
			continue
		}
		r.childCharged[c.Call] = max(r.childCharged[c.Call], c.Attempt)
	}
	for _, attempt := range own {
		r.RetryCharges += attempt - 1
	}
	for _, ch := range run.Children {
		if ch.Carried == nil || ch.Carried.Owner == nil {
			return nil, "", fmt.Errorf("child %s: no owner in its start header", ch.WorkflowID)
		}
		if ch.RunID == "" {
			continue
		}
		r.Children = append(r.Children, ChildRecord{WorkflowID: ch.WorkflowID, RunID: ch.RunID, Delegation: ch.Carried.Owner.Delegation})
	}
	if run.NextRunID != "" {
		if run.Handed == nil {
			return nil, "", errors.New("the run continued as new without handing its budgets over")
		}
		r.ContinuedAsNew = true
		r.CarriedSpent, r.CarriedPoolUsed = int(run.Handed.Attempts[BudgetName].Spent), int(run.Handed.Retries[PoolName].Spent)
		next = run.NextRunID
	}
	for _, e := range events {
		switch {
		case e.GetWorkflowExecutionCompletedEventAttributes() != nil:
			var res Result
			if err := dc.FromPayloads(e.GetWorkflowExecutionCompletedEventAttributes().GetResult(), &res); err != nil {
				return nil, "", fmt.Errorf("the run's result: %w", err)
			}
			r.Result = &res
		case e.GetWorkflowExecutionFailedEventAttributes() != nil:
			return nil, "", fmt.Errorf("the run failed: %s", e.GetWorkflowExecutionFailedEventAttributes().GetFailure().GetMessage())
		}
	}
	return r, next, nil
}

// callStats is what a history's activity calls did: the attempts that ran
// the activity's code, the owners their headers name, and the calls that
// ended because their run could take no charge at all.
type callStats struct {
	ran    int
	owners []observe.Owner
	// outOfUpdates counts calls failed with temporaladk.TypeRunOutOfUpdates
	// or TypeBudgetClosed.
	outOfUpdates int
}

// readAttempts reads the activity calls of a run. The server records the
// start of a call's last attempt only, with its number: the attempts before
// it ran, failed and were retried. An attempt did not run the activity's
// code when it failed at its charge before it: the budget refused it (a
// BudgetExceededError with no cause; one refused after its attempt failed
// has that failure as its cause) or the charge got no answer
// (TypeBudgetUnavailable, which the kit makes before the code runs only).
func readAttempts(run *kithistory.Run) callStats {
	var st callStats
	for _, c := range run.Calls {
		if c.Owner != nil {
			st.owners = append(st.owners, *c.Owner)
		}
		last := c.Attempts[len(c.Attempts)-1]
		if last.Started.IsZero() {
			continue
		}
		st.ran += last.Number
		if n := len(c.Attempts); n > 1 && unrun(c.Attempts[n-2].Failure) {
			st.ran--
		}
		if last.End != observe.CallFailed {
			continue
		}
		if unrun(last.Failure) {
			st.ran--
		}
		switch last.Failure.GetApplicationFailureInfo().GetType() {
		case temporaladk.TypeRunOutOfUpdates, temporaladk.TypeBudgetClosed:
			st.outOfUpdates++
		}
	}
	return st
}

// unrun reports whether an attempt's failure is the kit's, made before the
// activity's code ran.
func unrun(f *failurepb.Failure) bool {
	switch f.GetApplicationFailureInfo().GetType() {
	case temporaladk.TypeBudgetExceeded:
		return f.GetCause() == nil
	case temporaladk.TypeBudgetUnavailable:
		return true
	}
	return false
}
