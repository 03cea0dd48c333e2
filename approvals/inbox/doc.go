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
// (net/http, html/template): no front-end build, and no script on the page
// but a Relay's.
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
// # Decisions signed by the person's own key
//
// With Options.Relay instead of Signers (a passkey: package
// contrib/passkey), the inbox holds no private key. Approve or Deny asks
// the inbox for a challenge over the decision's approvals.Statement (POST
// /challenge, which fixes its expiry), has the person's own key answer it
// in the browser (the relay's script), and sends the answer (POST
// /answer); the inbox relays it as the decision's key and signature, and
// the run's validator accepts or refuses it. Identity then decides only who
// sees the page and in whose name a decision is asked. Both POSTs are
// checked as a decision is, below.
//
// # Which requests decide
//
// A decision is a form POST, and another site must not make a person's
// browser send one. The inbox accepts a POST /decide only when
//   - its Sec-Fetch-Site, if sent, is same-origin (cross-site, same-site
//     and none are refused), and
//   - its Origin, if sent and not "null", is the inbox's own host (the
//     request's Host), and
//   - its Origin is sent and not "null", or Sec-Fetch-Site is same-origin:
//     a sandboxed frame on any site sends Origin "null", and a browser that
//     sends no Sec-Fetch-Site shows nothing else.
//
// So, by Origin and Sec-Fetch-Site:
//
//	Origin \ Sec-Fetch-Site   same-origin   cross-site   not sent
//	the inbox's host         accepted      refused      accepted
//	another host             refused       refused      refused
//	"null"                   accepted      refused      refused
//	not sent                 accepted      refused      refused
//
// Current browsers send both on the page's own form POST; a program that
// posts to the inbox sends the inbox's origin as Origin. A refused request
// is a 403 whose body names the header that refused it.
package inbox
