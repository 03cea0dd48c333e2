package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what the sample shows: the conversation's runs as their
// histories show them, and the checks made on them.
type Report struct {
	// Server is the Temporal frontend; DevServer is true when the sample
	// started it.
	Server    string
	DevServer bool
	// WorkflowID is the conversation's workflow ID, the same in every run
	// of its chain; Input its first run's input.
	WorkflowID string
	Input      Input
	// Result is the last run's result.
	Result Result
	// Runs are the chain's runs, read from the histories recorded of it.
	Runs []*RunRecord
	// HistoryDir is where the histories were recorded; ReplayErr the
	// replay of all of them.
	HistoryDir string
	ReplayErr  error
	// Checks are the properties computed from the runs (see Failed);
	// Elapsed is the sample's time, server start included.
	Checks  []Check
	Elapsed time.Duration
}

// Check is one property of the run, computed from the histories.
type Check struct {
	// Name says the property; OK whether it held; Detail the figures it
	// was computed from.
	Name   string
	OK     bool
	Detail string
}

// Totals are the whole chain's figures.
type Totals struct {
	// Attempts is the attempts that ran, the conversation's own and its
	// sub-agents'; Charged those its budget was charged.
	Attempts, Charged int
	// Retries is the retries of its own calls charged; ChildAttempts the
	// sub-agents' attempts charged to it; Refusals the charges refused.
	Retries, ChildAttempts, Refusals int
	// Children is the sub-agents started; OutOfUpdates the calls that
	// failed because their run could take no charge at all.
	Children     int
	OutOfUpdates int
}

// Totals adds the runs' figures up.
func (r *Report) Totals() Totals {
	var t Totals
	for _, run := range r.Runs {
		t.Attempts += run.Attempts()
		t.Charged += run.FirstAttempts + run.RetryCharges + run.ChildCharges
		t.Retries += run.RetryCharges
		t.ChildAttempts += run.ChildCharges
		t.Refusals += run.Refusals
		t.Children += len(run.Children)
		t.OutOfUpdates += run.OutOfUpdates
		for _, c := range run.Children {
			t.OutOfUpdates += c.OutOfUpdates
		}
	}
	return t
}

// evaluate computes the checks from the runs.
func (r *Report) evaluate() {
	add := func(name string, ok bool, format string, args ...any) {
		r.Checks = append(r.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	}
	t := r.Totals()
	if len(r.Runs) == 0 {
		add("the chain was read back", false, "no run")
		return
	}
	last := r.Runs[len(r.Runs)-1]
	add("continued as new on its own at least twice", len(r.Runs) >= 3, "%d runs in the chain", len(r.Runs))

	handOver, detail := true, []string{}
	for i, run := range r.Runs[:len(r.Runs)-1] {
		next := r.Runs[i+1]
		ok := run.ContinuedAsNew && run.EndSpent() == run.CarriedSpent && next.StartSpent == run.CarriedSpent && next.StartPoolUsed == run.CarriedPoolUsed
		handOver = handOver && ok
		detail = append(detail, fmt.Sprintf("run %d ended at %d, handed over %d, run %d began at %d", run.Number, run.EndSpent(), run.CarriedSpent, next.Number, next.StartSpent))
	}
	add("each hand-over carried the budget as its run left it", handOver, "%s", strings.Join(detail, "; "))

	add("the last run's budget is what its history charged", last.Result != nil && last.EndSpent() == last.Result.Spent,
		"run %d: %d at start + %d charged = %d; its result says %d", last.Number, last.StartSpent, last.EndSpent()-last.StartSpent, last.EndSpent(), r.Result.Spent)
	add("every attempt that ran was charged, once", t.Attempts == t.Charged && t.Charged == r.Result.Spent,
		"%d attempts ran (the conversation's and its sub-agents'), %d charged, %d spent reported", t.Attempts, t.Charged, r.Result.Spent)

	under := r.Result.Limit == r.Input.Ceiling && r.Result.Spent <= r.Input.Ceiling
	for _, run := range r.Runs {
		under = under && run.EndSpent() <= r.Input.Ceiling && run.StartLimit == r.Input.Ceiling
	}
	stop := "all turns taken"
	if r.Result.StoppedBy == "budget" {
		stop = "stopped at the ceiling: " + r.Result.Refusal
	}
	add("the total never passed the ceiling", under, "%d of %d attempts spent over %d runs, the ceiling never widened; %s", r.Result.Spent, r.Input.Ceiling, len(r.Runs), stop)

	charged, childDetail := t.Children > 0, []string{}
	for _, run := range r.Runs {
		for _, c := range run.Children {
			charged = charged && c.OwnerChecked && c.Attempts == c.Charged && c.Attempts > 0
			childDetail = append(childDetail, fmt.Sprintf("%s %d/%d", shortID(c.WorkflowID), c.Charged, c.Attempts))
		}
	}
	add("sub-agents charged to the parent, every attempt", charged, "%d sub-agents, charged/ran: %s", t.Children, strings.Join(childDetail, ", "))

	add("budgeted retries happened", t.Retries > 0, "%d retries of the conversation's own calls charged through the charge Update, %d refused", t.Retries, t.Refusals)

	within := t.OutOfUpdates == 0
	near := (r.Input.UpdateLimit*9 + 9) / 10
	var counts []string
	for _, run := range r.Runs {
		within = within && run.Updates <= r.Input.UpdateLimit && (!run.ContinuedAsNew || run.Updates >= near)
		counts = append(counts, fmt.Sprint(run.Updates))
	}
	add("each run continued as new before its Update limit", within, "Updates per run %s of %d (continue as new from %d); %d calls ran out of Updates", strings.Join(counts, ", "), r.Input.UpdateLimit, near, t.OutOfUpdates)

	replay := "clean"
	if r.ReplayErr != nil {
		replay = r.ReplayErr.Error()
	}
	add("replay of every recorded history clean", r.ReplayErr == nil, "%s", replay)
}

// Failed returns the checks that failed.
func (r *Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

// Print writes the report.
func (r *Report) Print(w io.Writer) {
	server := "a server of your own"
	if r.DevServer {
		server = fmt.Sprintf("a dev server the sample started, history.maxTotalUpdates=%d", r.Input.UpdateLimit)
	}
	fmt.Fprintf(w, "temporaladk conversation sample: workflow %s\n", r.WorkflowID)
	fmt.Fprintf(w, "  Temporal %s (%s)\n", r.Server, server)
	fmt.Fprintf(w, "  budgets  %q of %d attempts, %q of %d retries, across every run; Update limit %d per run\n\n",
		BudgetName, r.Input.Ceiling, PoolName, r.Input.Retries, r.Input.UpdateLimit)

	fmt.Fprintln(w, "Runs of the chain (read back from each run's history and its sub-agents')")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  run\trun ID\tturns\tUpdates\tspent at start\tfirst attempts\tretries\tsub-agent attempts\trefused\tspent at end\tattempts ran\tpool used\tended")
	for _, run := range r.Runs {
		endTurn, ended := r.Result.Turns, "completed"
		poolEnd := r.Result.PoolUsed
		if run.ContinuedAsNew {
			ended = fmt.Sprintf("continued as new, carried %d", run.CarriedSpent)
			poolEnd = run.CarriedPoolUsed
		}
		for _, next := range r.Runs {
			if next.Number == run.Number+1 {
				endTurn = next.Input.Turn
			}
		}
		fmt.Fprintf(tw, "  %d\t%s\t%d-%d\t%d (%d charges)\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d→%d\t%s\n",
			run.Number, shortID(run.RunID), run.Input.Turn+1, endTurn, run.Updates, run.ChargeUpdates, run.StartSpent,
			run.FirstAttempts, run.RetryCharges, run.ChildCharges, run.Refusals, run.EndSpent(), run.Attempts(), run.StartPoolUsed, poolEnd, ended)
	}
	tw.Flush()
	t := r.Totals()
	fmt.Fprintf(w, "  total: %d attempts ran, %d charged (%d retries, %d by %d sub-agents), %d refused; %d of %d spent\n\n",
		t.Attempts, t.Charged, t.Retries, t.ChildAttempts, t.Children, t.Refusals, r.Result.Spent, r.Input.Ceiling)

	fmt.Fprintln(w, "Sub-agents (child workflows started under the budget)")
	for _, run := range r.Runs {
		for _, c := range run.Children {
			fmt.Fprintf(w, "  run %d  %-14s %s  %d attempts ran, %d charged to run %d's ledger\n", run.Number, shortID(c.WorkflowID), c.Delegation, c.Attempts, c.Charged, run.Number)
		}
	}
	fmt.Fprintf(w, "\nEnd: %d turns over %d runs, stopped by %s; pool %d of %d retries used, %d refused in the last run\n",
		r.Result.Turns, r.Result.Runs, r.Result.StoppedBy, r.Result.PoolUsed, r.Result.PoolSize, r.Result.PoolRefusals)
	fmt.Fprintf(w, "Histories %s: %d runs and %d sub-agents recorded\n\n", r.HistoryDir, len(r.Runs), t.Children)

	fmt.Fprintln(w, "Checks")
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  [%s] %s: %s\n", mark, c.Name, c.Detail)
	}
	fmt.Fprintf(w, "\nDone in %.1fs.\n", r.Elapsed.Seconds())
}

// shortID is the last part of a workflow ID, or the first 8 characters of
// a run ID.
func shortID(id string) string {
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[i+1:]
	}
	if len(id) > 8 {
		return id[:8] + "…"
	}
	return id
}
