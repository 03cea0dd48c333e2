// Package approvals is human approval before an effectful tool runs: who
// may approve is declared and enforced, every decision is signed and
// audited, and a person sees the arguments they approve. It holds the
// client side (List, Decide, Audit on a client.Client and a workflow ID,
// so that a stateless web handler needs nothing else; the inbox in package
// approvals/inbox is one), the signing (Signer, Verifier), a worker's
// settings (WorkerOptions, given as interceptors.Options.Approvals), and
// the workflow side's per-call request (WithApproval, with Options).
//
// A tool declares it once, at registration, with who may approve:
//
//	verifier, _ := approvals.NewEd25519Verifier(anaKey, boKey, cyKey) // public keys, each naming its principal
//	bookers, _ := verifier.Approvers(2)                               // 2 of those 3, each decision signed
//	interceptors.Options{
//		Activities: map[string]temporaladk.Declaration{"BookSeat": {Class: temporaladk.Tool,
//			Idempotency: temporaladk.Effectful, RequiresApproval: true, ApprovalTimeout: 4 * time.Hour}},
//		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"BookSeat": bookers}, Verifier: verifier},
//	}
//
// Each principal is named once, in its key: the verifier's Approvers are
// every principal it holds a key of (contrib/passkey's Verifier has the
// same method). NewApprovers names them instead, for approvers that are
// some of the verifier's principals, or for a Verifier of another kind (a
// JWT verifier).
//
// The workflow code that calls it does not change. A tool that needs an
// approval only sometimes is called on a context from WithApproval, which
// can also give the call a summary a person reads and its own approvers.
// A tool declared RequiresApproval without approvers is an error of
// interceptors.NewPlugin; so is one whose approvers need signatures on a worker
// without a Verifier.
//
// # A call may narrow its declaration, never widen it
//
// WithApproval on a call of a tool its worker declares RequiresApproval
// may ask more of the approval than the declaration, never less. Its
// Options.Approvers, when set, must be
//   - for declared approvers that name principals: principals among the
//     declared ones (a subset), signed (not open), with Required at least
//     the declared Required;
//   - for declared open approvers: open or named, with Required at least
//     the declared Required (named principals are narrower than any name);
//
// and its Options.Timeout, when set, at most the declared ApprovalTimeout
// (DefaultTimeout when the declaration sets none). A call whose options
// widen the declaration (open approvers where the declaration names who
// signs, a principal outside the declared set, fewer required approvals, a
// longer timeout) fails at once, before it waits, with a
// *temporaladk.ApprovalRejectedError naming the declaration and the option
// that widens it: a per-call option in workflow code cannot weaken what
// the worker's configuration demands. The decision is recorded with the
// call's approvers (see In the workflow), so a history replays as it was
// recorded. WithApproval on an activity not declared RequiresApproval has
// no declaration to narrow: its options are the whole demand.
//
// # Who may approve
//
// Approvers name a set of principals and how many distinct ones must
// approve (N of M). The call runs once, after the Nth distinct approval; a
// deny from any one of them before that ends it with a
// *temporaladk.ApprovalDeniedError naming who denied and why. The same
// principal approving twice is rejected.
//
// A decision proves its principal: it is signed (Signer; ed25519 from the
// standard library for the built-in verifier, NewEd25519Verifier, whose
// keys each belong to one principal). A Verifier is a seam: a JWT verifier
// with keys configured on the worker fits it, and contrib/passkey's checks
// WebAuthn assertions, signed by a person's own authenticator (the inbox
// relays them, holding no key: inbox.Options.Relay). The signature covers the
// Statement: the workflow ID, the run and its chain (the first run ID of
// its continue-as-new chain), the call, the activity ID it runs under once
// approved (Pending.ActivityID), its activity type, the digest of its
// arguments, approve or deny, the principal and an expiry. A decision
// signed for another workflow, run, call, activity, digest or decision,
// or altered, does not verify, nor does one an earlier build signed over
// a statement without the activity ID (the verifier says so); one whose expiry is not after the workflow's time
// (workflow.Now: deterministic, the same on every worker, never a
// machine's clock) is expired. Verification is pure and runs in the
// Update's validator, which does not run on replay: a refused decision
// leaves nothing in history, and changing the worker's keys changes no
// recorded run. Keys are given at construction, copied and validated.
//
// # Open mode
//
// Approvers{Open: true} (OpenApprovers) accept an unsigned decision from
// any non-empty Decision.By, as the kit did before decisions were signed;
// it must be asked for in so many words. It does not protect against a
// client with access to the namespace approving in anyone's name: By is
// whatever the client wrote, and history proves only that some client
// sent it. Use it where the namespace's access control is the whole
// control, or in tests.
//
// # In the workflow
//
// The kit's workflow interceptor gates the call before anything else: no
// plan, no budget charge, no command for the activity. The call gets an ID,
// "approval-N" in the order the run made such calls (the same on replay),
// the activity ID it will run under (Pending.ActivityID: "approval-N",
// unless the workflow set one in its activity options), and the digest of
// its arguments (Digest: SHA-256 of their canonical form, the one the
// kit's idempotency keys hash). The call's approvers are recorded in a
// marker (workflow.SideEffect) when it begins to wait, so that a deploy
// that changes them changes no running call. ExecuteActivity returns its
// future at once; a coroutine waits (workflow.AwaitWithOptions, a timer
// of the call's timeout: Options.Timeout, ApprovalTimeout, else
// DefaultTimeout, 24 hours) for decisions through the Update UpdateName:
//   - approved by enough principals: the call is scheduled then, with the
//     activity ID its approvals name and its grant in its header, under
//     its normal policy, its budgets charged then, and its future settles
//     with the activity's outcome;
//   - denied: the future fails with a *temporaladk.ApprovalDeniedError with
//     the approver and reason; the call never runs;
//   - not enough approvals by the deadline: the same error, Reason "timed
//     out: no decision within <timeout>".
//
// Both errors are never retried. A cancelled workflow context ends the wait
// with a CanceledError.
//
// A decision says approve or deny in so many words: Request.Approve is a
// pointer, and a request without it is rejected. The Update's validator
// rejects, before anything enters history (ApplicationErrors of type
// temporaladk.TypeApprovalRejected), a request that says neither, one
// without a call, digest or approver, one that names no waiting call, one
// for a call already decided or timed out, one whose digest is not the
// call's, one by a principal not among the call's approvers, and for
// approvers that are not open, one without a signature, one that does not
// verify, one that has expired, and a second approval by the same
// principal. An accepted
// decision is an accepted Update in the run's history: a replay, on this
// worker or another after a crash or a deploy, reads it there and never
// asks again.
//
// # Where the tool runs
//
// The kit's activity side checks the grant too, whoever scheduled the
// call: a call of an activity declared RequiresApproval on that worker, or
// carrying a grant (a WithApproval call), runs only with a grant bound to
// it: its workflow, run, activity type, activity ID, the digest of the
// arguments the activity received (recomputed there), and enough distinct
// approvals by the worker's approvers whose signatures verify with the
// worker's own Verifier over the statement of the activity it serves
// (expiry was checked when the run accepted them; a retry after it still
// runs). A grant lets exactly one activity run, whoever writes the header:
// its approvals name its activity ID, a grant that names none is refused,
// and the activity side reads the run's history (with the activity's
// client, once per attempt) and refuses an activity whose ID the run
// scheduled before, since the server reuses the ID of a closed activity.
// So a gated call's activity ID must be unique in its run: the kit's own
// approval-N are; one the workflow sets and reuses for a second gated
// call is refused. Anything else is refused before the user's code runs,
// non-retryable, with an ApplicationError of type
// temporaladk.TypeApprovalNotGranted that names the mistake: a workflow
// worker without the kit's plugin (no kit header at all), a kit that did
// not gate the call, a grant for other arguments or another activity, a
// copy of a grant, or the approvals that did not hold and why. A history
// that cannot be read fails the attempt with a retryable error.
//
// # What a person sees
//
// The Query QueryName lists the waiting calls (Pending: workflow, run and
// chain, call, activity type, class, digest, summary, since, deadline,
// approvers, approvals so far, and the arguments). List decodes them with
// the client's data converter (a payload codec applies) and checks that
// their digest is the listed one, so what a person reads is what a
// decision releases. The kit's summary is "<class> <activity type>"; one
// given with Options.Summary is shown as it is. While calls wait, the kit
// writes them, without arguments, into the workflow's current details
// (workflow.SetCurrentDetails), which the Web UI shows. With
// WorkerOptions.SearchAttribute, the run's search attribute
// SearchAttribute is true while a call waits, so that an inbox finds the
// waiting runs of a namespace (WaitingQuery). The interceptors package's
// metrics count requests, decisions and the wait.
//
// # Audit
//
// Audit reads who decided what, when and with which key, for a workflow's
// chain of continue-as-new runs, from the accepted Updates in their
// histories: the history is the audit trail, nothing is kept beside it.
//
// # Continue-as-new
//
// A call waiting for people crosses continue-as-new (the kit's hand-over,
// which conversation.ContinueAsNew and workflow.NewContinueAsNewError both
// go through): the run hands it to the next run in its start header with
// its approvals so far (signed, as accepted), its approvers, its absolute
// deadline (workflow time) and its digest, not its arguments. The next
// run holds it from its first task, so a decision that reaches that run
// before its code makes the call again is validated and recorded there,
// not lost. The next run's code expresses the call as every run does: it
// makes it again, the same activity type with arguments of the same
// digest (and the same activity ID, if it sets one). The kit recognises it
// as the carried call and it waits on, with the same deadline, ID and
// approvals; the Query lists it again only then (Pending.Runs names the
// runs it waited in), since a person must see the arguments they approve.
// It is decided there, and runs there, once.
//
// A decision binds the run the call began to wait in: a carried call keeps
// its Pending.RunID, Call and ActivityID, so a decision signed on any run's
// listing of it verifies in every run it waits in, and in no other call:
// the next run numbers its own calls after the chain's last ("approval-N"
// goes on across the runs a call is carried through), so no other call of
// those runs has its ID or activity ID. On the activity side, the grant of
// a carried call names the runs it waited in; the activity runs only if
// they are an unbroken stretch of the chain (each run's history says which
// run it continued) and the activity ID was scheduled once across them.
//
// A carried call the next run does not make again before it continues as
// new lapses, decided or not: it is not carried further and never runs;
// the start header of the run after names it under "lapsed", with the runs
// it waited in, and the worker logs it. A run that ends without making it
// ends it with the run. A call already decided when the run continues as
// new is not carried: conversation.ContinueAsNew waits for it to be
// scheduled (or to fail) first, and for every Update handler to finish.
//
// Runs recorded before this (no version marker temporaladk/approval/carry)
// replay as they ran: conversation.ContinueAsNew waited there until no call
// waited. Audit lists, for each decision, the run that accepted it, the run
// its call began in and every run the call waited in.
//
// # From a client
//
//	pending, err := approvals.WaitPending(ctx, c, workflowID, 1) // or List, for what waits now
//	// show pending[0].Args and Summary to a person, then:
//	req, err := ana.Approve(pending[0], "checked", time.Now().Add(10*time.Minute))
//	err = approvals.Decide(ctx, c, workflowID, req)
//
// A decision is made on the pending call List returned: its Call and
// Digest come from there, and List has checked that digest against the
// arguments it decoded, so an approver never rebuilds the tool's arguments
// to compute it. For open approvers the decision is unsigned:
//
//	err = approvals.Approve(ctx, c, workflowID, approvals.Decision{Call: p.Call, Digest: p.Digest, By: "ana"})
//
// In a unit test, testsuite.KitTestEnvironment's Approve and Deny do the
// same in one call each.
//
// The decisions target the workflow's current run. An operator with the
// Temporal CLI lists and decides open-mode calls without Go:
//
//	temporal workflow query --workflow-id trip-1 --name temporaladk.approvals
//	temporal workflow update execute --workflow-id trip-1 --name temporaladk.approve \
//		--input '{"call":"approval-1","digest":"<digest>","by":"ana","approve":true}'
//	temporal workflow update execute --workflow-id trip-1 --name temporaladk.approve \
//		--input '{"call":"approval-2","digest":"<digest>","by":"ana","approve":false,"reason":"one seat is enough"}'
//
// A signed decision carries "expires", "key" and "signature" (base64) as
// well: Signer makes them.
//
// ARCHITECTURE.md lists the Update, Query, search attribute and version
// names above with every other name the kit puts on the wire, and where a
// gated call is decided.
package approvals
