// Package charge is the mechanism of the kit's budgets, in two types: the
// Ledger, the workflow side, which decides every charge, reservation and
// settlement of a run in workflow code (the charge Update, the budgets
// Query, and the version change ID temporaladk/budget), and the Charger, the
// activity side, which asks a run for them before and after each attempt.
// The budgets' state and arithmetic are internal/budget's; interceptors
// wires both types into the kit:
//
//	l := charge.NewLedger(charge.Hooks{Refused: count, HandedOver: closed})
//	err := l.Register(ctx, budget.NewChain(carried)) // the Update and the Query
//	name, err := l.Open(ctx, "Chat", temporaladk.Model, attempts, retries, meters)
//	c := charge.NewCharger(nil, clock, prices) // nil: the activity's own client
//	refused, err := c.Start(ctx, activity.GetInfo(ctx), header, 2)
//
// See ARCHITECTURE.md for the path of one call through both.
package charge
