package agent

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/converter"

	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Report is what one run of the sample showed: the options every call was
// scheduled with and what happened to it, read back from the run's history,
// with the workflow's result, the ledger's effects and the replay.
type Report struct {
	WorkflowID, RunID string
	// Server is the frontend address; DevServer is true when the sample
	// started it.
	Server    string
	DevServer bool
	ModelURL  string
	// StandIn is true when the MODEL calls went to the sample's stand-in.
	StandIn bool
	Input   Input
	Result  Result
	Calls   []*Call
	Ledger  []LedgerEntry
	// LedgerPath, MemoryDir and HistoryPath are where the run left its files.
	LedgerPath, MemoryDir, HistoryPath string
	HistoryEvents                      int
	// Budgets are the run's token and cost budgets as the kit's Query
	// spend.QueryName answered at the end.
	Budgets []spend.State
	// ReplayErr is the replay's outcome: nil when clean.
	ReplayErr error
	Elapsed   time.Duration
	Checks    []Check
}

// Check is one fact the run must show.
type Check struct {
	Name   string
	OK     bool
	Detail string
	// Skipped is set when the run could not show the fact (no faults are
	// injected into an external model endpoint).
	Skipped bool
}

// Failed returns the checks that failed.
// beatsPerWindow is how many beats the kit's heartbeater sends per heartbeat
// window (its interval is a third of the window).
const beatsPerWindow = 3

func (r *Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.OK && !c.Skipped {
			out = append(out, c)
		}
	}
	return out
}

// CallsOf returns the calls of one activity type.
func (r *Report) CallsOf(activityType string) []*Call {
	var out []*Call
	for _, c := range r.Calls {
		if c.ActivityType == activityType {
			out = append(out, c)
		}
	}
	return out
}

// Call returns the call of an activity type with a label, or nil.
func (r *Report) Call(activityType, label string) *Call {
	for _, c := range r.Calls {
		if c.ActivityType == activityType && c.Label == label {
			return c
		}
	}
	return nil
}

// ChatReply returns the reply of the completed attempt of a Chat call.
func ChatReply(c *Call) (chat.Reply, bool) {
	var reply chat.Reply
	done := c.Completed()
	if done == nil || len(done.Result.GetPayloads()) == 0 {
		return reply, false
	}
	return reply, converter.GetDefaultDataConverter().FromPayload(done.Result.GetPayloads()[0], &reply) == nil
}

// gap is the time between an attempt's failure and the next attempt's
// schedule: the wait the run really followed.
func gap(c *Call, i int) time.Duration {
	if i+1 >= len(c.Attempts) {
		return 0
	}
	return c.Attempts[i+1].Scheduled.Sub(c.Attempts[i].Closed)
}

// evaluate works out the checks from the calls, the result and the ledger.
func (r *Report) evaluate() {
	modelSkip := ""
	if !r.StandIn || !r.Input.ModelFaults {
		modelSkip = "no faults injected: the MODEL calls went to " + r.ModelURL
	}
	add := func(name string, skip string, ok bool, detail string, args ...any) {
		if skip != "" {
			r.Checks = append(r.Checks, Check{Name: name, Skipped: true, Detail: skip})
			return
		}
		r.Checks = append(r.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(detail, args...)})
	}

	// A 503, retried after a wait drawn inside the activity.
	if c := r.Call("Chat", StepPlan); c == nil || len(c.Attempts) < 2 {
		add("MODEL retried after an injected 503 with a drawn wait", modelSkip, false, "the plan call has %d attempts", attemptsOf(c))
	} else {
		f := c.Attempts[0]
		ok := f.ErrorType == temporaladk.TypeProvider && f.Decision != nil && f.Decision.Source == "jitter" && c.Completed() != nil
		add("MODEL retried after an injected 503 with a drawn wait", modelSkip, ok,
			"attempt 1 %s, wait %s drawn (%s), attempt %d completed", f.ErrorType, waitOf(f), sourceOf(f), completedNumber(c))
	}
	// A 429 whose Retry-After was honoured.
	if c := r.Call("Chat", StepAnswer); c == nil || len(c.Attempts) < 2 {
		add("429 Retry-After honoured", modelSkip, false, "the answer call has %d attempts", attemptsOf(c))
	} else {
		f := c.Attempts[0]
		ok := f.ErrorType == temporaladk.TypeRateLimit && f.Decision != nil && f.Decision.Source == "retry-after" &&
			f.Decision.Wait == r.Input.RetryAfter && gap(c, 0) >= r.Input.RetryAfter && c.Completed() != nil
		add("429 Retry-After honoured", modelSkip, ok,
			"Retry-After %s asked, wait %s (%s), next attempt %s later", r.Input.RetryAfter, waitOf(f), sourceOf(f), round(gap(c, 0)))
	}
	// The stall survived by heartbeats.
	if c := r.Call("Chat", StepFollowUp); c == nil {
		add("stall before the first token survived by heartbeats", modelSkip, false, "no follow-up call")
	} else {
		reply, _ := ChatReply(c)
		ok := len(c.Attempts) == 1 && c.Completed() != nil && c.Heartbeat > 0 &&
			reply.FirstToken > 2*c.Heartbeat && reply.Beats >= 2*beatsPerWindow
		add("stall before the first token survived by heartbeats", modelSkip, ok,
			"first token after %s with a %s heartbeat window, %d beats sent, %d attempt(s)", round(reply.FirstToken), c.Heartbeat, reply.Beats, len(c.Attempts))
	}
	// The dropped stream, retried.
	if c := r.Call("Chat", StepSummary); c == nil || len(c.Attempts) < 2 {
		add("dropped stream retried", modelSkip, false, "the summary call has %d attempts", attemptsOf(c))
	} else {
		f := c.Attempts[0]
		add("dropped stream retried", modelSkip, f.ErrorType == temporaladk.TypeProviderUnavailable && c.Completed() != nil,
			"attempt 1 %s, wait %s drawn, attempt %d completed", f.ErrorType, waitOf(f), completedNumber(c))
	}

	// One ledger effect per booking, while the booking was retried.
	effects := map[string]int{}
	for _, e := range r.Ledger {
		effects[e.Key]++
	}
	bookings := r.CallsOf("BookSeat")
	okBook, retried := len(bookings) == len(r.Input.Passengers), 0
	var parts []string
	for _, c := range bookings {
		n := effects[c.Key]
		okBook = okBook && c.Key != "" && n == 1 && c.Completed() != nil
		if len(c.Attempts) > 1 {
			retried++
		}
		parts = append(parts, fmt.Sprintf("%s: %d effect(s) in %d attempt(s)", c.Label, n, len(c.Attempts)))
	}
	toolSkip := ""
	if !r.Input.ToolFaults {
		toolSkip = "no tool faults injected"
	}
	add("exactly one ledger effect per booking", "", okBook && len(r.Ledger) == len(bookings) && (retried > 0 || toolSkip != ""),
		"%s; %d ledger lines", strings.Join(parts, ", "), len(r.Ledger))

	// Read-only calls retried; the fan-out capped by the pool.
	seatMaps := r.CallsOf("SeatMap")
	total, retriedRO, completed := 0, 0, 0
	for _, c := range seatMaps {
		total += len(c.Attempts)
		if len(c.Attempts) > 1 && c.Completed() != nil {
			retriedRO++
		}
		if c.Completed() != nil {
			completed++
		}
	}
	add("read-only tool calls retried", toolSkip, retriedRO > 0, "%d of %d seat maps came back on a retry", retriedRO, len(seatMaps))
	pool := r.Result.Pool
	uncapped := len(seatMaps) * ToolMaxAttempts
	add("fan-out calls capped by the pool", toolSkip, total == len(seatMaps)+pool.Spent && pool.Spent <= pool.Limit && total < uncapped,
		"%d calls for %d branches = %d first + %d retries from a pool of %d (uncapped: up to %d); %d branches refused a retry",
		total, len(seatMaps), len(seatMaps), pool.Spent, pool.Limit, uncapped, pool.Refusals)

	r.spendChecks(add)

	add("run under its attempt budget", "", r.Result.RunBudget.Spent <= r.Result.RunBudget.Limit && r.Result.RunBudget.Spent == r.attempts(),
		"%d of %d attempts spent, %d attempts in the history", r.Result.RunBudget.Spent, r.Result.RunBudget.Limit, r.attempts())
	detail := "clean"
	if r.ReplayErr != nil {
		detail = r.ReplayErr.Error()
	}
	add("replay of the recorded history clean", "", r.ReplayErr == nil, "%s", detail)
}

// SpendTotals are what the history's charge Updates reserved and settled
// for the MODEL calls' attempts, summed.
type SpendTotals struct {
	// Attempts is how many attempts of MODEL calls ran; Reserved how many
	// of them were reserved and granted, Settled how many a settle
	// request is in the history for, Refused how many were refused.
	Attempts, Reserved, Settled, Refused int
	ReservedTokens, SettledTokens        int64
	ReservedCost, SettledCost            spend.Micros
}

// SpendTotals sums the spend of every attempt of the run's MODEL calls.
func (r *Report) SpendTotals() SpendTotals {
	var t SpendTotals
	for _, c := range r.Calls {
		if c.Class != temporaladk.Model {
			continue
		}
		for _, a := range c.Attempts {
			t.Attempts++
			s := a.Spend
			switch {
			case s == nil:
				continue
			case s.Refused != "":
				t.Refused++
				continue
			case !s.Granted:
				continue
			}
			t.Reserved++
			if s.Settled {
				t.Settled++
			}
			t.ReservedTokens += s.ReservedTokens
			t.ReservedCost += s.ReservedCost
			t.SettledTokens += s.SettledTokens
			t.SettledCost += s.SettledCost
		}
	}
	return t
}

// Budget returns the Query's state of the budget of a kind ("tokens" or
// "cost"), or false.
func (r *Report) Budget(kind string) (spend.State, bool) {
	for _, s := range r.Budgets {
		if s.Kind == kind {
			return s, true
		}
	}
	return spend.State{}, false
}

// spendChecks are the checks of the token and cost budgets: every attempt
// of a MODEL call reserved before it ran and settled after it, and the
// settled totals read from the history equal to what the workflow and the
// Query report, within the ceilings.
func (r *Report) spendChecks(add func(name, skip string, ok bool, detail string, args ...any)) {
	t := r.SpendTotals()
	skip := ""
	if r.Input.TokenBudget == 0 && r.Input.CostBudget == 0 {
		skip = "the run was under no token or cost budget"
	}
	add("every MODEL attempt reserved before it ran and settled after", skip, t.Attempts > 0 && t.Reserved == t.Attempts && t.Settled == t.Attempts && t.Refused == 0,
		"%d attempts, %d reserved, %d settled, %d refused", t.Attempts, t.Reserved, t.Settled, t.Refused)
	for _, m := range []struct {
		kind, name      string
		limit           int64
		fromHistory     int64
		reservedHistory int64
		workflow        MeterState
		format          func(int64) string
	}{
		{"tokens", "TokenBudget", r.Input.TokenBudget, t.SettledTokens, t.ReservedTokens, r.Result.Tokens, func(n int64) string { return fmt.Sprintf("%d", n) }},
		{"cost", "CostBudget", int64(r.Input.CostBudget), int64(t.SettledCost), int64(t.ReservedCost), r.Result.Cost, func(n int64) string { return Dollars(spend.Micros(n)) }},
	} {
		q, ok := r.Budget(m.kind)
		agree := ok && q.Spent == m.fromHistory && q.Reserved == 0 && q.Limit == m.limit && m.workflow.Limit == m.limit &&
			m.workflow.Spent == m.fromHistory && m.workflow.Reserved == 0 && q.Spent <= q.Limit && q.Remaining == q.Limit-q.Spent
		skip := ""
		if m.limit == 0 {
			skip = "the run was under no " + m.kind + " budget"
		}
		add(fmt.Sprintf("%s settled within the %s, history, workflow and Query agreeing", m.kind, m.name), skip, agree && m.fromHistory <= m.reservedHistory,
			"%s settled of %s reserved over the attempts (history); workflow %s settled, Query %s settled, %s reserved, %s remaining of %s",
			m.format(m.fromHistory), m.format(m.reservedHistory), m.format(m.workflow.Spent), m.format(q.Spent), m.format(q.Reserved), m.format(q.Remaining), m.format(q.Limit))
	}
}

// Dollars formats micro-dollars as dollars with six decimals, exactly.
func Dollars(m spend.Micros) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s$%d.%06d", sign, m/spend.Dollar, m%spend.Dollar)
}

func (r *Report) attempts() int {
	n := 0
	for _, c := range r.Calls {
		n += len(c.Attempts)
	}
	return n
}

func attemptsOf(c *Call) int {
	if c == nil {
		return 0
	}
	return len(c.Attempts)
}

func completedNumber(c *Call) int {
	if a := c.Completed(); a != nil {
		return a.Number
	}
	return 0
}

func waitOf(a *Attempt) string {
	if a.Decision == nil {
		return "none"
	}
	s := round(a.Decision.Wait).String()
	if a.Decision.Truncated {
		s += fmt.Sprintf(" (truncated from %s: %s)", round(a.Decision.Requested), a.Decision.Reason)
	}
	return s
}

func sourceOf(a *Attempt) string {
	if a.Decision == nil {
		return "none"
	}
	return a.Decision.Source
}

func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func dur(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

// Print writes the report.
func (r *Report) Print(w io.Writer) {
	server := r.Server
	if r.DevServer {
		server += " (a dev server the sample started)"
	}
	model := r.ModelURL
	if r.StandIn {
		model += " (the sample's stand-in model server)"
	}
	fmt.Fprintf(w, "\ntemporaladk agent sample: workflow %s, run %s\n", r.WorkflowID, r.RunID)
	fmt.Fprintf(w, "  Temporal %s\n  model    %s\n\n", server, model)

	fmt.Fprintln(w, "Options applied, per call (read back from the ActivityTaskScheduled events and the kit's header)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  class\tactivity\tcall\tStartToClose\tHeartbeat\tattempts (kit)\tbackoff\tidempotency\tkey")
	for _, c := range r.Calls {
		key := "-"
		if c.Key != "" {
			key = c.Key[:min(12, len(c.Key))] + "…"
		}
		idem := c.Idempotency
		if idem == "" {
			idem = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%s..%s\t%s\t%s\n", c.Class, c.ActivityType, short(c.Label, 24), dur(c.StartToClose), dur(c.Heartbeat), c.ScheduledMaxAttempts, c.InitialInterval, c.MaxInterval, idem, key)
	}
	tw.Flush()
	fmt.Fprintln(w, "  Under the attempt budget the retries stay the server's: each call is scheduled once, and each")
	fmt.Fprintln(w, "  retry is charged through the kit's Update before it runs; \"attempts (kit)\" is the call's count.")

	fmt.Fprintln(w, "\nWhat happened")
	for _, cls := range []temporaladk.Class{temporaladk.Model, temporaladk.Tool, temporaladk.Retrieval, temporaladk.Memory} {
		for _, c := range r.Calls {
			if c.Class != cls {
				continue
			}
			fmt.Fprintf(w, "  %-9s %s %s\n", c.Class, c.ActivityType, c.Label)
			for i, a := range c.Attempts {
				line := fmt.Sprintf("attempt %d: %s", a.Number, a.Outcome)
				if a.Outcome != "completed" && a.Outcome != "open" {
					line += fmt.Sprintf(" with %s (%s)", a.ErrorType, short(a.Message, 70))
					if a.Decision != nil {
						line += fmt.Sprintf("; wait %s [%s, requested %s, truncated: %v]", waitOf(a), a.Decision.Source, round(a.Decision.Requested), a.Decision.Truncated)
						if a.Decision.Final {
							line += " final: " + a.Decision.Reason
						}
					}
					if g := gap(c, i); g > 0 {
						line += fmt.Sprintf("; next attempt scheduled %s later", round(g))
					}
				}
				if a.Outcome == "completed" && c.ActivityType == "Chat" {
					if reply, ok := ChatReply(c); ok {
						line += fmt.Sprintf(": %d tokens in %d chunks, first token after %s, %d heartbeats sent", reply.Tokens, reply.Chunks, round(reply.FirstToken), reply.Beats)
					}
				}
				fmt.Fprintf(w, "              %s\n", line)
			}
		}
		if cls == temporaladk.Tool {
			for _, b := range r.Result.Bookings {
				how := "a new booking"
				if b.Deduplicated {
					how = "landed on the first booking (ledger dedupe by key)"
				}
				fmt.Fprintf(w, "            booking %s@%s seat %s %s: attempt %d, %s\n", b.Passenger, b.Flight, b.Seat, b.Confirmation, b.Attempt, how)
			}
			if r.Result.ExternalTool != "" {
				fmt.Fprintf(w, "            external tool %s: %s\n", r.Input.ExternalTool.Tool, short(r.Result.ExternalTool, 80))
			}
			for _, m := range r.Result.SeatMaps {
				if m.Refused {
					fmt.Fprintf(w, "            seat map %s: retry refused by the pool (%s)\n", m.Flight, short(m.Error, 80))
				}
			}
		}
	}

	r.printSpend(w)

	fmt.Fprintf(w, "\nLedger %s: %d effect(s)\n", r.LedgerPath, len(r.Ledger))
	for _, e := range r.Ledger {
		fmt.Fprintf(w, "  %s %s@%s seat %s (attempt %d, key %s…)\n", e.Confirmation, e.Passenger, e.Flight, e.Seat, e.Attempt, e.Key[:min(12, len(e.Key))])
	}
	fmt.Fprintf(w, "Budgets: attempt budget %d of %d attempts spent", r.Result.RunBudget.Spent, r.Result.RunBudget.Limit)
	if r.Result.RunBudget.Refused != "" {
		fmt.Fprintf(w, ", refused: %s", r.Result.RunBudget.Refused)
	} else {
		fmt.Fprint(w, ", none refused")
	}
	p := r.Result.Pool
	fmt.Fprintf(w, "; fan-out pool %d of %d retries used, %d retries refused\n", p.Spent, p.Limit, p.Refusals)
	sep := "        "
	for _, m := range []struct {
		name string
		s    MeterState
		f    func(int64) string
	}{
		{"TokenBudget", r.Result.Tokens, func(n int64) string { return fmt.Sprintf("%d tokens", n) }},
		{"CostBudget", r.Result.Cost, func(n int64) string { return Dollars(spend.Micros(n)) }},
	} {
		if m.s.Limit == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s %s settled of %s", sep, m.name, m.f(m.s.Spent), m.f(m.s.Limit))
		if m.s.Refused != "" {
			fmt.Fprintf(w, ", refused: %s", m.s.Refused)
		} else {
			fmt.Fprint(w, ", none refused")
		}
		sep = ";"
	}
	if sep != "        " {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Memory %s: %d turn(s) read, %d stored\n", r.MemoryDir, r.Result.MemoryRead, r.Result.MemoryStored)
	if len(r.Result.Hits) > 0 {
		var titles []string
		for _, h := range r.Result.Hits {
			titles = append(titles, fmt.Sprintf("%q %.2f", h.Title, h.Score))
		}
		fmt.Fprintf(w, "Retrieval: %s\n", strings.Join(titles, ", "))
	}
	fmt.Fprintf(w, "Answer: %s\n", short(r.Result.Answer, 140))
	fmt.Fprintf(w, "History %s: %d events, replayed with the kit's plugin: ", r.HistoryPath, r.HistoryEvents)
	if r.ReplayErr == nil {
		fmt.Fprintln(w, "clean")
	} else {
		fmt.Fprintf(w, "FAILED: %v\n", r.ReplayErr)
	}

	fmt.Fprintln(w, "\nChecks")
	for _, c := range r.Checks {
		mark := "ok  "
		switch {
		case c.Skipped:
			mark = "skip"
		case !c.OK:
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  [%s] %s: %s\n", mark, c.Name, c.Detail)
	}
	fmt.Fprintf(w, "\nDone in %s.\n", r.Elapsed.Round(100*time.Millisecond))
}

// printSpend writes the spend of every attempt of the MODEL calls, from the
// history's charge Updates, their totals, and the budgets as the Query
// answered.
func (r *Report) printSpend(w io.Writer) {
	fmt.Fprintln(w, "\nSpend, per MODEL call and attempt (read back from the kit's charge Updates, temporaladk.charges, in the history)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  call\tattempt\tmodel\tcap\treserved tokens\tsettled tokens\treserved cost\tsettled cost\tusage reported (in/cached/out)\t")
	for _, c := range r.Calls {
		if c.Class != temporaladk.Model {
			continue
		}
		for _, a := range c.Attempts {
			s := a.Spend
			if s == nil {
				fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t-\t-\t-\t-\tno reservation in the history\t\n", c.Label, a.Number, c.Model, c.MaxTokens)
				continue
			}
			if !s.Granted {
				fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t-\t-\t-\t-\trefused: %s\t\n", c.Label, a.Number, s.Model, s.MaxTokens, short(s.Refused, 60))
				continue
			}
			usage := "none: the reservation spent whole"
			if !s.Settled {
				usage = "not settled: the reservation spent whole"
			} else if s.Usage != nil {
				usage = fmt.Sprintf("%d/%d/%d", s.Usage.InputTokens, s.Usage.CachedInputTokens, s.Usage.OutputTokens)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t\n", c.Label, a.Number, s.Model, s.MaxTokens,
				s.ReservedTokens, s.SettledTokens, Dollars(s.ReservedCost), Dollars(s.SettledCost), usage)
		}
	}
	t := r.SpendTotals()
	fmt.Fprintf(tw, "  total\t%d\t\t\t%d\t%d\t%s\t%s\t\t\n", t.Attempts, t.ReservedTokens, t.SettledTokens, Dollars(t.ReservedCost), Dollars(t.SettledCost))
	tw.Flush()
	if p := r.priceOf(); p != nil {
		fmt.Fprintf(w, "  Priced per million tokens as recorded in the reservations: input %s, cached input %s, output %s;\n", Dollars(p.Input), Dollars(p.CachedInput), Dollars(p.Output))
		fmt.Fprintln(w, "  a reservation holds the cap at the highest of the three, settled at the usage the attempt reported.")
	}
	fmt.Fprintf(w, "Budgets Query %s at the end:\n", spend.QueryName)
	for _, b := range r.Budgets {
		f := func(n int64) string { return fmt.Sprintf("%d", n) }
		if b.Kind == "cost" {
			f = func(n int64) string { return Dollars(spend.Micros(n)) }
		}
		fmt.Fprintf(w, "  %-8s %-10q limit %s, reserved %s, spent %s, remaining %s", b.Kind, b.Name, f(b.Limit), f(b.Reserved), f(b.Spent), f(b.Remaining))
		for _, by := range b.By {
			fmt.Fprintf(w, "; %s %s: reserved %s, spent %s", by.Class, by.Model, f(by.Reserved), f(by.Spent))
		}
		fmt.Fprintln(w)
	}
}

// priceOf returns the price the first priced reservation was made at, or
// nil.
func (r *Report) priceOf() *spend.Price {
	for _, c := range r.Calls {
		for _, a := range c.Attempts {
			if a.Spend != nil && a.Spend.Price != nil {
				return a.Spend.Price
			}
		}
	}
	return nil
}

func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
