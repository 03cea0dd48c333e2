package inbox

import (
	"embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/approvals"
)

// Relay lets each person decide with a key only they hold, a passkey for
// example (package contrib/passkey): the inbox holds no private key. For a
// decision the page asks the inbox for a challenge over the decision's
// Statement (POST /challenge), has the person's own key answer it in the
// browser with the relay's Script, and sends the answer back (POST
// /answer); the inbox turns it into the Request's Key and Signature with
// Proof and relays the decision. It checks nothing the workflow does not:
// the run's Update validator, with the worker's approvals.Verifier, accepts
// or refuses the decision, and the kit's activity side verifies it again.
type Relay interface {
	// CanDecide reports whether principal has a key the relay can ask for.
	CanDecide(principal string) bool
	// Challenge returns what the page's script hands to Script's
	// temporaladkSign so that principal's key signs s: JSON of the relay's
	// own form.
	Challenge(principal string, s approvals.Statement) (json.RawMessage, error)
	// Proof returns the Request.Key and Request.Signature of the decision
	// s from answer, what temporaladkSign returned in the browser. It need
	// not verify it; the workflow does.
	Proof(principal string, s approvals.Statement, answer []byte) (key string, proof []byte, err error)
	// Script is the JavaScript the page loads before its own: it defines
	// window.temporaladkSign, an async function from the challenge (parsed
	// JSON) to the answer (a string), which fails when the person declines.
	Script() string
}

// relayScript is the page's own part of a relayed decision: it asks for
// the challenge, has temporaladkSign answer it, and sends the answer.
//
//go:embed relay.js
var relayFS embed.FS

// relayRoutes serves the relay's script and its two steps.
func (h *Handler) relayRoutes() {
	own, err := relayFS.ReadFile("relay.js")
	if err != nil {
		panic(err) // embedded at build time
	}
	script := h.relay.Script() + "\n" + string(own)
	h.mux.HandleFunc("GET /relay.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		_, _ = w.Write([]byte(script))
	})
	h.mux.HandleFunc("POST /challenge", h.challenge)
	h.mux.HandleFunc("POST /answer", h.answer)
}

// contentSecurityPolicy is the page's: no script at all, but the inbox's
// own relay.js when a Relay decides.
func (h *Handler) contentSecurityPolicy() string {
	if h.relay != nil {
		return "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; form-action 'self'"
	}
	return "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'"
}

// relayed is a relayed decision's form: the call the page showed, the
// decision and, for an answer, the expiry the challenge named.
type relayed struct {
	principal string
	pending   approvals.Pending
	approve   bool
	reason    string
	form      url.Values
}

// relayedDecision checks a relayed request and finds the call it names,
// writing the error itself when it returns false.
func (h *Handler) relayedDecision(w http.ResponseWriter, r *http.Request) (relayed, bool) {
	if err := sameOrigin(r); err != nil {
		http.Error(w, "inbox: "+err.Error(), http.StatusForbidden)
		return relayed{}, false
	}
	principal, err := h.identity(r)
	if err != nil || strings.TrimSpace(principal) == "" {
		http.Error(w, fmt.Sprintf("inbox: who you are is not known: %v", err), http.StatusUnauthorized)
		return relayed{}, false
	}
	if !h.relay.CanDecide(principal) {
		http.Error(w, fmt.Sprintf("inbox: %q has no key the inbox can ask for, so they cannot decide here", principal), http.StatusForbidden)
		return relayed{}, false
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "inbox: "+err.Error(), http.StatusBadRequest)
		return relayed{}, false
	}
	f := r.PostForm
	workflowID, runID, call, digest, decision := f.Get("workflow"), f.Get("run"), f.Get("call"), f.Get("digest"), f.Get("decision")
	if decision != "approve" && decision != "deny" {
		http.Error(w, fmt.Sprintf("inbox: the form's decision is %q: approve or deny", decision), http.StatusBadRequest)
		return relayed{}, false
	}
	ps, err := approvals.List(r.Context(), h.c, workflowID)
	if err != nil {
		http.Error(w, "inbox: "+err.Error(), http.StatusConflict)
		return relayed{}, false
	}
	i := slices.IndexFunc(ps, func(p approvals.Pending) bool { return p.RunID == runID && p.Call == call && p.Digest == digest })
	if i < 0 {
		http.Error(w, fmt.Sprintf("inbox: %s of workflow %s no longer waits with the arguments shown", call, workflowID), http.StatusConflict)
		return relayed{}, false
	}
	return relayed{principal: principal, pending: ps[i], approve: decision == "approve", reason: strings.TrimSpace(f.Get("reason")), form: f}, true
}

// challenge answers POST /challenge: the expiry the inbox gives the
// decision and the relay's challenge over its statement, as JSON.
func (h *Handler) challenge(w http.ResponseWriter, r *http.Request) {
	d, ok := h.relayedDecision(w, r)
	if !ok {
		return
	}
	expires := h.now().Add(h.validFor).UTC().Truncate(time.Second)
	c, err := h.relay.Challenge(d.principal, d.pending.Statement(d.approve, d.principal, expires))
	if err != nil {
		http.Error(w, "inbox: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Expires   time.Time       `json:"expires"`
		Challenge json.RawMessage `json:"challenge"`
	}{expires, c})
}

// answer serves POST /answer: the decision with the browser's answer,
// relayed to the run, whose validator accepts or refuses it.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request) {
	d, ok := h.relayedDecision(w, r)
	if !ok {
		return
	}
	back := func(key, msg string) {
		http.Redirect(w, r, "./?"+url.Values{key: {msg}}.Encode(), http.StatusSeeOther)
	}
	expires, err := time.Parse(time.RFC3339Nano, d.form.Get("expires"))
	now := h.now()
	switch {
	case err != nil:
		back("error", fmt.Sprintf("the decision's expiry %q is not a time: %v", d.form.Get("expires"), err))
		return
	case !expires.After(now) || expires.After(now.Add(h.validFor)):
		back("error", fmt.Sprintf("the decision's expiry %s is not within the inbox's %v from now: ask for a new challenge", expires.UTC().Format(time.RFC3339), h.validFor))
		return
	}
	s := d.pending.Statement(d.approve, d.principal, expires)
	key, proof, err := h.relay.Proof(d.principal, s, []byte(d.form.Get("answer")))
	if err != nil {
		back("error", err.Error())
		return
	}
	req := approvals.Request{Decision: approvals.Decision{Call: d.pending.Call, Digest: d.pending.Digest, By: d.principal, Reason: d.reason},
		Approve: &d.approve, Expires: s.Expires.UTC(), Key: key, Signature: proof}
	if err := approvals.Decide(r.Context(), h.c, d.pending.WorkflowID, req); err != nil {
		back("error", err.Error())
		return
	}
	verb := map[bool]string{true: "approved", false: "denied"}[d.approve]
	back("done", fmt.Sprintf("%s %s %s of workflow %s", d.principal, verb, d.pending.Call, d.pending.WorkflowID))
}
