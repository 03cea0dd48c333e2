package inbox

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/approvals"
)

// DefaultValidFor is how long a decision the inbox signs is valid when
// Options.ValidFor is not set.
const DefaultValidFor = 10 * time.Minute

// Options configure the inbox.
type Options struct {
	// Client reaches the namespace whose waiting runs are listed. Required.
	Client client.Client
	// Identity returns the principal of the person who sent r (a decision's
	// Decision.By), or an error when r names none. Required.
	Identity func(r *http.Request) (string, error)
	// Signers sign the decisions, one per principal, each the only signer
	// of its principal. Required: at least one, unless Relay is set.
	Signers []*approvals.Signer
	// Relay, instead of Signers, has each person's own key sign their
	// decisions in the browser (a passkey: package contrib/passkey), and
	// the inbox relays them, holding no private key; Identity then only
	// decides who sees the page and in whose name a decision is asked. If
	// not set, the inbox signs with Signers.
	Relay Relay
	// ValidFor is how long a signed decision is valid after the inbox
	// signs it. If not set, DefaultValidFor. Must not be negative.
	ValidFor time.Duration
	// Now is the inbox's clock, for the expiry of the decisions it signs.
	// If not set, time.Now.
	Now func() time.Time
	// Title heads the page. If not set, "Approvals".
	Title string
	// QueryTimeout bounds the Query that lists one run's calls, so that a
	// run whose workers are away shows as an error, not a page that never
	// loads. If not set, DefaultQueryTimeout. Must not be negative.
	QueryTimeout time.Duration
}

// DefaultQueryTimeout is Options.QueryTimeout when it is not set.
const DefaultQueryTimeout = 5 * time.Second

// Handler is the inbox: GET / lists the waiting calls, POST /decide
// approves or denies one.
type Handler struct {
	c        client.Client
	identity func(*http.Request) (string, error)
	signers  map[string]*approvals.Signer
	relay    Relay
	validFor time.Duration
	now      func() time.Time
	title    string
	mux      *http.ServeMux
	// queryTimeout is Options.QueryTimeout.
	queryTimeout time.Duration
}

// New checks opts and returns the inbox, naming the first bad field. The
// signers are copied into a map of its own.
func New(opts Options) (*Handler, error) {
	switch {
	case opts.Client == nil:
		return nil, errors.New("inbox: Options.Client is nil")
	case opts.Identity == nil:
		return nil, errors.New("inbox: Options.Identity is nil: the inbox must know who decides")
	case len(opts.Signers) == 0 && opts.Relay == nil:
		return nil, errors.New("inbox: Options.Signers is empty: the inbox could sign no decision (set Options.Relay to have people sign their own)")
	case len(opts.Signers) > 0 && opts.Relay != nil:
		return nil, errors.New("inbox: Options.Signers and Options.Relay are both set: the inbox either signs decisions or relays them")
	case opts.ValidFor < 0:
		return nil, fmt.Errorf("inbox: Options.ValidFor is %v: it must not be negative", opts.ValidFor)
	case opts.QueryTimeout < 0:
		return nil, fmt.Errorf("inbox: Options.QueryTimeout is %v: it must not be negative", opts.QueryTimeout)
	}
	h := &Handler{c: opts.Client, identity: opts.Identity, signers: map[string]*approvals.Signer{},
		relay: opts.Relay, validFor: cmp.Or(opts.ValidFor, DefaultValidFor), now: opts.Now, title: cmp.Or(opts.Title, "Approvals"),
		queryTimeout: cmp.Or(opts.QueryTimeout, DefaultQueryTimeout)}
	if h.now == nil {
		h.now = time.Now
	}
	for i, s := range opts.Signers {
		if s == nil {
			return nil, fmt.Errorf("inbox: Options.Signers[%d] is nil", i)
		}
		if _, dup := h.signers[s.Principal()]; dup {
			return nil, fmt.Errorf("inbox: Options.Signers[%d] signs for %q, as an earlier one does", i, s.Principal())
		}
		h.signers[s.Principal()] = s
	}
	h.mux = http.NewServeMux()
	h.mux.HandleFunc("GET /{$}", h.list)
	h.mux.HandleFunc("POST /decide", h.decide)
	if h.relay != nil {
		h.relayRoutes()
	}
	return h, nil
}

// ServeHTTP serves the inbox.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

//go:embed page.html
var pageFS embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Sprintf("(arguments not shown: %v)", err)
		}
		return string(b)
	},
	"utc": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
}).ParseFS(pageFS, "page.html"))

// row is one call on the page.
type row struct {
	approvals.Pending
	// CanDecide reports whether the person signed in may decide it and
	// the inbox can sign for them.
	CanDecide bool
}

type view struct {
	Title     string
	Principal string
	CanSign   bool
	Relay     bool
	Message   string
	Error     string
	Calls     []row
}

// Waiting lists the calls waiting for approval across the namespace's
// runs, by deadline, as the page shows them. A run whose calls cannot be
// listed (its worker is away, its arguments do not match their digest) is
// left out, and its error joined to the one returned beside the others.
func (h *Handler) Waiting(ctx context.Context) ([]approvals.Pending, error) {
	var (
		out   []approvals.Pending
		errs  []error
		token []byte
	)
	for {
		resp, err := h.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: approvals.WaitingQuery, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("inbox: listing the waiting runs (%s): %w", approvals.WaitingQuery, err)
		}
		for _, e := range resp.GetExecutions() {
			qctx, cancel := context.WithTimeout(ctx, h.queryTimeout)
			ps, err := approvals.List(qctx, h.c, e.GetExecution().GetWorkflowId())
			cancel()
			if err != nil {
				errs = append(errs, fmt.Errorf("inbox: %w", err))
				continue
			}
			out = append(out, ps...)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	slices.SortStableFunc(out, func(a, b approvals.Pending) int {
		return cmp.Or(a.Deadline.Compare(b.Deadline), cmp.Compare(a.WorkflowID, b.WorkflowID), cmp.Compare(a.Call, b.Call))
	})
	return out, errors.Join(errs...)
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	principal, err := h.identity(r)
	if err != nil || strings.TrimSpace(principal) == "" {
		http.Error(w, fmt.Sprintf("inbox: who you are is not known: %v", err), http.StatusUnauthorized)
		return
	}
	v := view{Title: h.title, Principal: principal, Message: r.URL.Query().Get("done"), Error: r.URL.Query().Get("error")}
	_, v.CanSign = h.signers[principal]
	if v.Relay = h.relay != nil; v.Relay {
		v.CanSign = h.relay.CanDecide(principal)
	}
	ps, err := h.Waiting(r.Context())
	if err != nil {
		v.Error = err.Error()
	}
	for _, p := range ps {
		v.Calls = append(v.Calls, row{Pending: p, CanDecide: v.CanSign && p.Approvers.Allows(principal) && !slices.Contains(p.Approvals, principal)})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", h.contentSecurityPolicy())
	if err := page.Execute(w, v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (h *Handler) decide(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		http.Error(w, "inbox: "+err.Error(), http.StatusForbidden)
		return
	}
	principal, err := h.identity(r)
	if err != nil || strings.TrimSpace(principal) == "" {
		http.Error(w, fmt.Sprintf("inbox: who you are is not known: %v", err), http.StatusUnauthorized)
		return
	}
	signer, ok := h.signers[principal]
	if !ok {
		http.Error(w, fmt.Sprintf("inbox: the inbox has no key for %q, so it cannot sign a decision in that name", principal), http.StatusForbidden)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "inbox: "+err.Error(), http.StatusBadRequest)
		return
	}
	f := r.PostForm
	workflowID, runID, call, digest, decision := f.Get("workflow"), f.Get("run"), f.Get("call"), f.Get("digest"), f.Get("decision")
	if decision != "approve" && decision != "deny" {
		http.Error(w, fmt.Sprintf("inbox: the form's decision is %q: approve or deny", decision), http.StatusBadRequest)
		return
	}
	back := func(key, msg string) {
		http.Redirect(w, r, "./?"+url.Values{key: {msg}}.Encode(), http.StatusSeeOther)
	}
	ps, err := approvals.List(r.Context(), h.c, workflowID)
	if err != nil {
		back("error", err.Error())
		return
	}
	i := slices.IndexFunc(ps, func(p approvals.Pending) bool { return p.RunID == runID && p.Call == call && p.Digest == digest })
	if i < 0 {
		back("error", fmt.Sprintf("%s of workflow %s no longer waits with the arguments shown", call, workflowID))
		return
	}
	var req approvals.Request
	expires := h.now().Add(h.validFor)
	reason := strings.TrimSpace(f.Get("reason"))
	if decision == "approve" {
		req, err = signer.Approve(ps[i], reason, expires)
	} else {
		req, err = signer.Deny(ps[i], reason, expires)
	}
	if err == nil {
		err = approvals.Decide(r.Context(), h.c, workflowID, req)
	}
	if err != nil {
		back("error", err.Error())
		return
	}
	verb := map[string]string{"approve": "approved", "deny": "denied"}[decision]
	back("done", fmt.Sprintf("%s %s %s of workflow %s", principal, verb, call, workflowID))
}

// sameOrigin refuses a decision another site made the browser send (see
// "Which requests decide" in the package doc): a Sec-Fetch-Site other than
// same-origin, an Origin other than the inbox's own host, and an Origin
// that is missing or "null" (a sandboxed frame on any site sends "null")
// without Sec-Fetch-Site: same-origin to say where the form came from.
func sameOrigin(r *http.Request) error {
	site := r.Header.Get("Sec-Fetch-Site")
	if site != "" && site != "same-origin" {
		return fmt.Errorf("a decision with Sec-Fetch-Site %q is refused: only the inbox's own page (same-origin) decides", site)
	}
	switch origin := r.Header.Get("Origin"); origin {
	case "", "null":
		if site != "same-origin" {
			shown := "no Origin"
			if origin != "" {
				shown = `Origin "null"`
			}
			return fmt.Errorf("a decision with %s and no Sec-Fetch-Site: same-origin is refused: nothing shows that it came from the inbox's own page (a sandboxed frame on any site sends Origin null)", shown)
		}
	default:
		u, err := url.Parse(origin)
		if err != nil || u.Host != r.Host {
			return fmt.Errorf("a decision from origin %q is refused: this inbox is %q", origin, r.Host)
		}
	}
	return nil
}
