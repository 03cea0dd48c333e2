// Package conversation keeps an agent whole across the runs of one
// conversation: a workflow that runs for days, continues as new many times
// and starts child workflows as sub-agents. It says when to continue as new
// (ShouldContinueAsNew) and does it with every Update handler finished
// (ContinueAsNew).
//
// Budgets set with temporaladk.WithBudgets and named in every run spend one
// ceiling across the chain and charge children at their parent; package
// spend explains how ("Continue-as-new" and "Children"):
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
// ContinueAsNew waits for every Update handler to finish
// (workflow.AllHandlersFinished) before the kit hands the run's state over.
// The run's idempotency keys are derived from the workflow ID and the first
// run ID of the chain, so they too are the same in every run of it.
//
// # Conversations by reference
//
// An agent on a stateless model sends the whole conversation with every
// model call. As a []Message argument, every call encodes the whole
// conversation again, and a turn's work grows with it, even on the kit's
// payload store (the square of the turns over a run; BENCHMARKS.md measures
// both forms side by side). A Log is the conversation by reference:
//
//	conv := conversation.NewLog[Message]()
//	conv.Append(ctx, system, user)
//	for ... {
//		var reply Message
//		workflow.ExecuteActivity(ctx, Model, conv).Get(ctx, &reply) // Model(ctx, conv *conversation.Log[Message])
//		conv.Append(ctx, reply, toolOutput)
//	}
//
// and in the activity, msgs, err := conv.Messages(ctx). With the store's
// DataConverter on every client and worker (payloads.Store.ClientOptions),
// a model call's input is the conversation's head, about 150 bytes, at turn
// 1 and at turn 1,000; the store's DataConverter writes what the turn added
// when it encodes the Log, and the activity reads the conversation from the
// store, decoding only what the last turn added. Carry the Log in the input
// of the next run when the run continues as new. Without the store a Log
// is encoded inline, as a slice is; use a slice for a conversation that
// stays a few KB.
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
//
// A run's history stays small on the store, but a worker that takes the run
// over replays it in one workflow task, decoding every tool output again and
// appending it to the Log again; a replay that outlasts the workflow task
// timeout never finishes. So ShouldContinueAsNew is also true once the
// run's Logs appended nine tenths of ReplayByteLimit (DefaultReplayByteLimit,
// or WithReplayByteLimit), whatever the history's size.
package conversation
