// Package history records workflow histories to JSON files, replays them with
// the SDK's WorkflowReplayer, and explains nondeterminism failures in terms of
// the commands a history recorded. The public wrappers live in package
// testsuite.
//
//	h, err := history.Record(ctx, c, "order-1", "")
//	err = history.WriteFile("testdata/histories/order.json", h)
//	err = history.Replay("testdata/histories/order.json", history.ReplayOptions{...})
//	cmds := history.Commands(h) // ["ScheduleActivityTask(Reserve)", "StartTimer(1s)", ...]
package history
