package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/internal/wire"
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
	// run's start header (wire.ChainHeaderKey) carried them in:
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

// carriedHeader is the part of the kit's start header ChainHeaderKey the
// report reads: the named budgets as they stood.
type carriedHeader struct {
	Runs map[string]struct {
		Limit int `json:"limit"`
		Spent int `json:"spent"`
	} `json:"runs"`
	Pools map[string]struct {
		Size int `json:"size"`
		Used int `json:"used"`
	} `json:"pools"`
}

var dc = converter.GetDefaultDataConverter()

// readCarried reads the budgets a start or continue-as-new header carries;
// ok is false when it carries none.
func readCarried(h *commonpb.Header) (carriedHeader, bool, error) {
	p, ok := h.GetFields()[wire.ChainHeaderKey]
	if !ok {
		return carriedHeader{}, false, nil
	}
	var c carriedHeader
	if err := dc.FromPayload(p, &c); err != nil {
		return carriedHeader{}, false, fmt.Errorf("header %s does not decode: %w", wire.ChainHeaderKey, err)
	}
	return c, true, nil
}

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
			st, err := readAttempts(ch.History.GetEvents())
			if err != nil {
				return runs, fmt.Errorf("conversation: sub-agent %s: %w", ch.WorkflowID, err)
			}
			ch.Attempts, ch.OutOfUpdates = st.ran, st.outOfUpdates
			ch.OwnerChecked = len(st.owners) > 0
			for _, o := range st.owners {
				if o.WorkflowID != workflowID || o.RunID != runID || o.Delegation != ch.Delegation {
					ch.OwnerChecked = false
				}
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
	if len(events) == 0 {
		return nil, "", errors.New("empty history")
	}
	start := events[0].GetWorkflowExecutionStartedEventAttributes()
	if start == nil {
		return nil, "", errors.New("the history does not begin with WorkflowExecutionStarted")
	}
	if err := dc.FromPayloads(start.GetInput(), &r.Input); err != nil {
		return nil, "", fmt.Errorf("the run's input: %w", err)
	}
	r.StartLimit = r.Input.Ceiling
	carried, ok, err := readCarried(start.GetHeader())
	if err != nil {
		return nil, "", err
	}
	if ok {
		b, has := carried.Runs[BudgetName]
		if !has {
			return nil, "", fmt.Errorf("the start header carries no budget %q", BudgetName)
		}
		r.StartSpent, r.StartLimit, r.StartPoolUsed = b.Spent, b.Limit, carried.Pools[PoolName].Used
	}
	st, err := readAttempts(events)
	if err != nil {
		return nil, "", err
	}
	r.OwnAttempts, r.OutOfUpdates = st.ran, st.outOfUpdates
	// Charges: the highest attempt granted per call, as the ledger keeps it.
	charged := map[string]int{}
	delegated := map[string]string{} // call -> child run ID
	requests := map[int64][]wire.ChargeRequest{}
	delegations := map[int64]string{} // child initiated event -> delegation
	childAt := map[int64]int{}        // child initiated event -> index in Children
	for _, e := range events {
		switch {
		case e.GetActivityTaskScheduledEventAttributes() != nil:
			ch, _, err := wire.DecodeCallHeader(e.GetActivityTaskScheduledEventAttributes().GetHeader().GetFields())
			if err != nil {
				return nil, "", fmt.Errorf("event %d: %w", e.GetEventId(), err)
			}
			if ch.Budget != "" {
				r.FirstAttempts++
				charged[ch.Budget] = 1
			}
		case e.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil:
			r.Updates++
			in := e.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest().GetInput()
			if in.GetName() != wire.ChargeUpdateName {
				break
			}
			r.ChargeUpdates++
			var reqs []wire.ChargeRequest
			if err := dc.FromPayloads(in.GetArgs(), &reqs); err != nil {
				return nil, "", fmt.Errorf("event %d: the charge Update's requests: %w", e.GetEventId(), err)
			}
			requests[e.GetEventId()] = reqs
		case e.GetWorkflowExecutionUpdateCompletedEventAttributes() != nil:
			attrs := e.GetWorkflowExecutionUpdateCompletedEventAttributes()
			reqs, ok := requests[attrs.GetAcceptedEventId()]
			if !ok {
				break
			}
			var res []wire.ChargeResult
			if err := dc.FromPayloads(attrs.GetOutcome().GetSuccess(), &res); err != nil {
				return nil, "", fmt.Errorf("event %d: the charge Update's results: %w", e.GetEventId(), err)
			}
			if len(res) != len(reqs) {
				return nil, "", fmt.Errorf("event %d: %d results for %d charge requests", e.GetEventId(), len(res), len(reqs))
			}
			for i, req := range reqs {
				switch {
				case res[i].Granted:
					charged[req.Call] = max(charged[req.Call], req.Attempt)
				case res[i].Refused != nil:
					r.Refusals++
				}
				if req.Delegation != "" {
					parts := strings.SplitN(req.Call, "/", 3)
					if len(parts) != 3 || parts[0] != req.Delegation {
						return nil, "", fmt.Errorf("event %d: a child's charge names call %q, not delegation/run/seq", e.GetEventId(), req.Call)
					}
					delegated[req.Call] = parts[1]
				}
			}
		case e.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil:
			attrs := e.GetStartChildWorkflowExecutionInitiatedEventAttributes()
			carried, ok, err := readOwner(attrs.GetHeader())
			if err != nil || !ok {
				return nil, "", fmt.Errorf("event %d: child %s: no owner in its start header (%v)", e.GetEventId(), attrs.GetWorkflowId(), err)
			}
			delegations[e.GetEventId()] = carried
		case e.GetChildWorkflowExecutionStartedEventAttributes() != nil:
			attrs := e.GetChildWorkflowExecutionStartedEventAttributes()
			childAt[attrs.GetInitiatedEventId()] = len(r.Children)
			r.Children = append(r.Children, ChildRecord{
				WorkflowID: attrs.GetWorkflowExecution().GetWorkflowId(),
				RunID:      attrs.GetWorkflowExecution().GetRunId(),
				Delegation: delegations[attrs.GetInitiatedEventId()],
			})
		case e.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
			attrs := e.GetWorkflowExecutionContinuedAsNewEventAttributes()
			carried, ok, err := readCarried(attrs.GetHeader())
			if err != nil {
				return nil, "", err
			}
			if !ok {
				return nil, "", errors.New("the run continued as new without handing its budgets over")
			}
			r.ContinuedAsNew = true
			r.CarriedSpent, r.CarriedPoolUsed = carried.Runs[BudgetName].Spent, carried.Pools[PoolName].Used
			next = attrs.GetNewExecutionRunId()
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
	for call, attempt := range charged {
		runID, child := delegated[call]
		if !child {
			r.RetryCharges += attempt - 1
			continue
		}
		r.ChildCharges += attempt
		for i := range r.Children {
			if r.Children[i].RunID == runID {
				r.Children[i].Charged += attempt
			}
		}
	}
	return r, next, nil
}

// readOwner reads the delegation a child's start header names.
func readOwner(h *commonpb.Header) (string, bool, error) {
	p, ok := h.GetFields()[wire.ChainHeaderKey]
	if !ok {
		return "", false, nil
	}
	var c struct {
		Owner *struct {
			Delegation string `json:"delegation"`
		} `json:"owner"`
	}
	if err := dc.FromPayload(p, &c); err != nil {
		return "", false, err
	}
	if c.Owner == nil {
		return "", false, nil
	}
	return c.Owner.Delegation, true, nil
}

// callStats is what a history's activity calls did: the attempts that ran
// the activity's code, the owners their headers name, and the calls that
// ended because their run could take no charge at all.
type callStats struct {
	ran    int
	owners []wire.CallOwner
	// outOfUpdates counts calls failed with temporaladk.TypeRunOutOfUpdates
	// or TypeBudgetClosed.
	outOfUpdates int
}

// readAttempts reads the activity calls of a history. The server records
// the started event of a call's last attempt only, with its number: the
// attempts before it ran, failed and were retried. An attempt did not run
// the activity's code when it failed at its charge before it: the budget
// refused it (a BudgetExceededError with no cause; one refused after its
// attempt failed has that failure as its cause) or the charge got no
// answer (TypeBudgetUnavailable, which the kit makes before the code runs
// only).
func readAttempts(events []*historypb.HistoryEvent) (callStats, error) {
	last := map[int64]int{}
	var st callStats
	for _, e := range events {
		switch {
		case e.GetActivityTaskScheduledEventAttributes() != nil:
			h, _, err := wire.DecodeCallHeader(e.GetActivityTaskScheduledEventAttributes().GetHeader().GetFields())
			if err != nil {
				return st, fmt.Errorf("event %d: %w", e.GetEventId(), err)
			}
			if h.Owner.Call != "" {
				st.owners = append(st.owners, h.Owner)
			}
		case e.GetActivityTaskStartedEventAttributes() != nil:
			attrs := e.GetActivityTaskStartedEventAttributes()
			n := int(attrs.GetAttempt())
			st.ran += n - last[attrs.GetScheduledEventId()]
			last[attrs.GetScheduledEventId()] = n
			if unrun(attrs.GetLastFailure()) {
				st.ran--
			}
		case e.GetActivityTaskFailedEventAttributes() != nil:
			f := e.GetActivityTaskFailedEventAttributes().GetFailure()
			if unrun(f) {
				st.ran--
			}
			switch f.GetApplicationFailureInfo().GetType() {
			case temporaladk.TypeRunOutOfUpdates, temporaladk.TypeBudgetClosed:
				st.outOfUpdates++
			}
		}
	}
	return st, nil
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
