// Package passkey lets people approve tool calls with their own passkeys
// (WebAuthn): the worker holds only their public credentials, the inbox
// relays their authenticators' assertions and holds no private key.
//
//	creds := []passkey.Credential{ana} // each printed by the Registrar as JSON
//	verifier, _ := passkey.NewVerifier(creds...)
//	refunders, _ := verifier.Approvers(1)                                 // 1 of the principals of creds, each named once
//	approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"IssueRefund": refunders}, Verifier: verifier} // the worker
//	relay, _ := passkey.NewRelay(creds...)
//	inbox.New(inbox.Options{Client: c, Identity: fromProxy, Relay: relay}) // the inbox
//	registrar, _ := passkey.NewRegistrar(passkey.RegistrarOptions{RPID: "approvals.example.com",
//		Origins: []string{"https://approvals.example.com"}, Identity: fromProxy})
//
// A person registers once on the Registrar's page: their browser creates
// the passkey and the page shows the public Credential (ID, COSE public
// key, relying party, origins, whether user verification is required),
// which an operator adds to the workers' configuration.
//
// To decide, the inbox's page asks the person's authenticator to sign the
// challenge of the decision, Challenge: the SHA-256 of the
// approvals.Statement's bytes (workflow, run, chain, call, activity,
// argument digest, approve or deny, principal, expiry). The decision's
// Request.Key is the credential ID and its Request.Signature the assertion
// (authenticator data, client data, signature), so the run's history holds
// it and approvals.Audit names the person and the credential. The Verifier
// checks the credential's principal, the challenge, the origin, the
// relying party, the person's presence and, where required, verification,
// and the signature, with github.com/go-webauthn/webauthn's parsing and
// checks. It is pure (no clock, no network, no randomness), so it runs in
// the workflow's Update validator, where a refusal leaves nothing in
// history, and again on the activity worker; the expiry is the
// statement's, checked against workflow time by the kit. Signature
// counters are not checked: they need state a pure check cannot keep; an
// assertion is bound to one decision by its challenge instead.
//
// The Proxy header of the inbox (inbox.Options.Identity) only decides who
// sees the page and in whose name a decision is asked: a decision needs
// the person's authenticator.
package passkey
