// Package observe is the kit's event seam: an Observer the kit calls at each
// decision it makes, so that tracing, metrics and reports read what the kit
// decided without decoding its headers or Updates. Embed Base and override
// what you need; give the observer to the kit in interceptors.Options:
//
//	type refusals struct{ observe.Base }
//
//	func (refusals) BudgetRefused(ctx workflow.Context, r observe.Refusal) {
//		workflow.GetLogger(ctx).Warn("refused", "call", r.Call, "budget", r.Err.Breached)
//	}
//
//	plugin, err := interceptors.NewPlugin(interceptors.Options{Observer: refusals{}})
//
// Join combines observers. contrib/opentelemetry and package live (a
// reply streamed to a screen) are built on this seam.
//
// Beside the seam, the kit records counts through the SDK's metrics handler
// under the names of this package's Metric constants (MetricAttempts, ...).
//
// # Events
//
// On the activity side, for every attempt the kit serves: AttemptStarted
// before anything runs for it, TextDelta for each piece of model output
// its code reports with providers.ReportText (numbered within the attempt;
// only when an observer is given, and never in history), AttemptEnded with
// the error the kit hands to the SDK (its type, the retry decision, a
// budget's refusal). An Attempt names its run, its call's number
// (Call.Seq, from the kit's header) and activity ID. In workflow
// code: ApprovalAsked and ApprovalDecided around a call's wait for its
// approval; CallPlanned when the kit schedules a call with its plan applied
// and CallEnded when its future resolves, with the result as recorded; Charged for each attempt a budget
// grants, BudgetRefused for each it refuses (a first attempt refused before
// the call is scheduled, a retry refused in the kit's charge Update); and
// TokensReserved and UsageSettled for each attempt a token or cost budget
// meters.
//
// Package observe/recorded reads the same events out of a recorded
// history, for reports that run after the fact.
//
// # Replay
//
// The workflow-side methods are called only when workflow.IsReplaying is
// false: a replayed history calls none of them, since each decision was
// observed when it was made. The activity side never replays.
package observe
