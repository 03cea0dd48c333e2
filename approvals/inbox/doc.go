// Package inbox is a web page people approve from: an http.Handler that
// lists the calls waiting for approval across workflows, each with its
// tool, arguments, summary, deadline and approvals so far, and approves or
// denies them, signed, in the name of the person signed in.
//
//	h, err := inbox.New(inbox.Options{
//		Client:   c,
//		Identity: func(r *http.Request) (string, error) { return r.Header.Get("X-Forwarded-User"), nil },
//		Signers:  []*approvals.Signer{ana, bo},
//	})
//	http.Handle("/approvals/", http.StripPrefix("/approvals", h))
//
// It finds the waiting runs through the search attribute
// approvals.SearchAttribute, which the kit keeps on them when the workers
// ask for it (approvals.WorkerOptions.SearchAttribute), and lists each
// run's calls with approvals.List: arguments decoded with the client's data
// converter and checked against their digest. It is standard library only
// (net/http, html/template): no front-end build, no script on the page.
//
// # Who decides
//
// Options.Identity names the person of each request, for example from the
// header an authenticating proxy sets; the inbox trusts it, so it must be
// served only behind that proxy. A decision is signed with the signer of
// that principal (Options.Signers) and is valid for Options.ValidFor from
// the inbox's clock; the workflow's validator checks the signature, the
// principal and the expiry against the workflow's time. A person the
// signers do not know sees the page but cannot decide. A decision names
// the run, call and digest the page showed, so a person never approves
// arguments other than the ones they read.
//
// A decision is a form POST; the inbox refuses one whose Origin, when the
// browser sends it, is not the inbox's own host, or whose Sec-Fetch-Site
// is cross-site, so that another site cannot decide in a person's name.
package inbox
