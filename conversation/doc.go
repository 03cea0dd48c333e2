// Package conversation keeps an agent whole across the runs of one
// conversation: a workflow that runs for days, continues as new many times
// and starts child workflows as sub-agents. It says when to continue as new
// (ShouldContinueAsNew) and does it with every Update handler finished
// (ContinueAsNew); the budgets set with temporaladk.WithBudgets cross into
// the next run and into children.
//
// # Budgets that cross continue-as-new
//
// Budgets are named (temporaladk.Budgets.Name). In the first run of a
// chain temporaladk.WithBudgets makes them new; in a run that was continued
// as new the same call gives them as the run before left them, restored
// from the kit's start header ("temporaladk-chain"). The same
// workflow code, continued as new any number of times, so spends one
// ceiling, one pool, one token and one cost ceiling across the whole chain
// (a token or cost reservation still open at the hand-over counts as
// spent):
//
//	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: 3000})
//	if err != nil {
//		return err
//	}
//	for ... {
//		// one turn
//		if conversation.ShouldContinueAsNew(ctx) {
//			return conversation.ContinueAsNew(ctx, Agent, state)
//		}
//	}
//
// The hand-over is the kit's interceptor of workflow.NewContinueAsNewError:
// any continue-as-new of a run on a kit worker carries the budgets named in
// it, and those the run before carried that it did not name, so a run that
// takes another branch loses none. ContinueAsNew adds the wait for every
// Update handler to finish (workflow.AllHandlersFinished) before it; after
// the hand-over the run charges nothing more (its charge Update's validator
// rejects), so no charge falls between two runs and none is counted twice.
//
// A restored budget keeps what it spent, and its ceiling is never widened:
// a larger number in a later run leaves the carried ceiling as it is, a
// smaller one narrows it. The run's idempotency keys are derived from the workflow ID and the first run
// ID of the chain, so they too are the same in every run of it.
//
// # Children charged to their parent
//
// A child workflow started on a context with budgets (a token or cost
// budget too, whose reservations and settlements are made at the parent
// the same way, at the cap and model the child was started with) is
// charged to them: the child's start header names the parent run's ledger,
// and every attempt of every call the child makes, its first too, is
// charged there through the parent's charge Update before the user's code
// runs, also in the runs the child continues as new and in the children it
// starts (a family has one ledger, at its root). The total across parent and
// children never passes the parent's ceiling; a refusal is a
// *temporaladk.BudgetExceededError in the child's call, never retried. The
// charges are Updates in the parent's history and the child's calls are
// activities in its own, so both replay. Nothing is reserved for a child:
// its attempts are charged as they are made, so a child that fails, is
// cancelled, times out or continues as new leaves the rest of the budget
// where it was, with nothing to return. What it spent is the attempts it
// made, and at most one more for each call that ended while it waited for
// a retry: a retry is charged when the attempt before it fails (so that a
// refusal keeps that failure as its cause), and a call cancelled or timed
// out before the retry starts leaves that charge spent. Waste, never an
// overrun; the same holds for a run's own calls.
// A child's own budgets cover its own calls besides; the children it starts
// are charged at the root only. A child that outlives the run that started
// it (ParentClosePolicy abandon, or a parent that continued as new) can be
// charged nothing more: its calls fail with
// temporaladk.TypeBudgetClosed.
//
// # The server's per-run limits
//
// Every budgeted retry is charged through a workflow Update, and the server
// accepts 2,000 Updates per run by default (history.maxTotalUpdates);
// histories are limited to 50K events and 50 MB. ShouldContinueAsNew is
// true when the server suggests continuing
// (workflow.GetInfo(ctx).GetContinueAsNewSuggested(), which covers the
// history's length and size) or when the Updates the run accepted, the
// kit's and the user's, reach nine tenths of the limit, DefaultUpdateLimit
// or the one WithUpdateLimit sets; and, with WithHistoryByteLimit, when the
// run's history reaches nine tenths of that many bytes. An agent that
// re-sends its growing conversation every turn passes the server's 2 MiB
// payload limit long before any of these when its payloads are inline
// (turn 42 with 50 KB tool outputs, and continuing as new cannot carry the
// conversation either); on the kit's payload store (package payloads) a
// turn adds about 2 KB of history, the conversation crosses into the next
// run as a claim, and the byte limit decides. The count is of accepted Updates, as the
// server counts, and replays the same. A run that reaches the limit anyway
// fails its next budgeted attempt at once, non-retryably, with
// temporaladk.TypeRunOutOfUpdates, "this run has no Updates left; continue
// as new", never a loop of TemporaladkBudgetUnavailable retries.
package conversation
