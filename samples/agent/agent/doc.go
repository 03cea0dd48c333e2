// Package agent is the workflow and activities of the agent sample: one agent
// run that uses the four activity classes of temporaladk for real.
//
//   - MODEL: Chat streams a completion from an OpenAI-compatible endpoint
//     (server-sent events), counting chunks on the kit's heartbeater and
//     classifying failures with providers.ClassifyHTTP.
//   - TOOL: BookSeat books a seat against a ledger file, with an idempotency
//     key derived from the flight and the passenger, so a retry lands on the
//     first booking; SeatMap is a read-only tool, fanned out over several
//     flights under one pool of retries (temporaladk.Budgets.Retries).
//   - RETRIEVAL: SearchDocs ranks a few dozen short texts shipped with the
//     sample (BM25).
//   - MEMORY: LoadMemory and SaveMemory keep the conversation in a directory.
//
// The whole run is charged against a ceiling on attempts, and its MODEL
// calls against a token and a cost ceiling besides, all set by one
// temporaladk.WithBudgets: each attempt reserves its cap
// (temporaladk.Budgets.MaxTokens) before it runs and settles
// with the usage Chat reports (providers.ReportUsage) after, priced from the
// table in KitOptions. The report reads the reservations and settlements
// back from the history's charge Updates and the budgets from the kit's
// Query spend.QueryName. The worker and the replayer both use
// KitOptions:
//
//	opts, _ := agent.KitOptions()
//	plugin, _ := interceptors.NewPlugin(opts)
//	w := worker.New(c, agent.TaskQueue, worker.Options{Plugins: []worker.Plugin{plugin}})
//	w.RegisterWorkflow(agent.AgentWorkflow)
//	w.RegisterActivity(&agent.Activities{...})
//
// Run executes the whole sample (a server, a worker, the run, the report,
// the recorded history and its replay); package main is its command line.
package agent
