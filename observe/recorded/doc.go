// Package recorded reads what the kit decided out of a recorded workflow
// history, as the values of package observe: the calls it planned, their
// attempts and how each ended, the charges, refusals, reservations and
// settlements of its charge Update, and the budgets a run carried in and
// handed on. A report that runs after the fact reads a history with it
// instead of decoding the kit's headers and Updates.
//
//	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
//	run, err := recorded.Read(h.GetEvents())
//	for _, c := range run.Calls {
//		fmt.Println(c.ActivityType, c.Class, len(c.Attempts), c.End.Outcome)
//	}
//
// # What a history holds
//
// A history holds less than the live observer sees, and Read yields what it
// holds only. The server records the start of a call's last attempt, with
// the failure of the attempt before it: earlier attempts are numbered, known
// to have failed, and have no Outcome. Workflow code leaves no event of its
// own: a first attempt charged or refused before the call was scheduled
// (Charged and BudgetRefused of attempt 1), an approval's wait, and a local
// activity's plan are not in the history. Everything the kit's charge
// Update decided is, and so is the end of every call.
package recorded
