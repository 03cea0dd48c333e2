package live

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
)

// DefaultPageTitle heads the page when PageOptions leaves Title unset.
const DefaultPageTitle = "Live"

// PageOptions configure the page NewPage serves.
type PageOptions struct {
	// Events is where the browser opens the stream: the URL the handler
	// from NewHandler is mounted at, as a path ("/live"), a path relative
	// to the page's URL ("events"), or an absolute http or https URL. The
	// page adds the query parameter stream=<the stream's name>, which
	// NewHandler reads unless HandlerOptions.Stream says otherwise.
	// Required.
	Events string
	// Stream reads from the page's request the name of the stream it
	// shows. If not set, the query parameter "stream". A request that
	// names none gets 400.
	Stream func(r *http.Request) string
	// Inbox is the URL of the approvals inbox (package approvals/inbox),
	// a path or an absolute http or https URL: an approval the page shows
	// waiting links to it, where a person decides, signed. The page decides
	// nothing itself. If not set, a waiting approval shows without a link.
	Inbox string
	// Title heads the page. If not set, DefaultPageTitle.
	Title string
}

//go:embed page.html page.js
var pageFiles embed.FS

var (
	pageTemplate = template.Must(template.ParseFS(pageFiles, "page.html"))
	pageScript   = mustRead("page.js")
	// pageScriptHash lets the page's one inline script run under its
	// Content-Security-Policy, and nothing else.
	pageScriptHash = func() string {
		sum := sha256.Sum256([]byte(pageScript))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}()
)

func mustRead(name string) string {
	b, err := pageFiles.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// NewPage returns an http.Handler that serves the live page: standard
// library only, one HTML document with its script inline (no build, no
// CDN), that opens the stream with the browser's EventSource at
// PageOptions.Events and shows it as it streams (see The page in the
// package doc). The page holds no event of its own: the handler's
// Authorize decides what a person may watch, and a page whose stream is
// refused says so. An Events or Inbox that is not such a URL is an error
// naming the field.
func NewPage(opts PageOptions) (http.Handler, error) {
	events, err := pageURL("Events", opts.Events, true)
	if err != nil {
		return nil, err
	}
	if events.Query().Has("stream") {
		return nil, fmt.Errorf("live: NewPage: PageOptions.Events %q has a query parameter stream: the page sets it to the stream it shows", opts.Events)
	}
	if events.Fragment != "" {
		return nil, fmt.Errorf("live: NewPage: PageOptions.Events %q has a fragment (#%s): a stream's URL has none", opts.Events, events.Fragment)
	}
	inbox, err := pageURL("Inbox", opts.Inbox, false)
	if err != nil {
		return nil, err
	}
	p := &page{events: events, stream: opts.Stream, title: opts.Title}
	if inbox != nil {
		p.inbox = inbox.String()
	}
	if p.stream == nil {
		p.stream = func(r *http.Request) string { return r.URL.Query().Get("stream") }
	}
	if strings.TrimSpace(p.title) == "" {
		p.title = DefaultPageTitle
	}
	connect := "'self'"
	if events.IsAbs() {
		connect += " " + events.Scheme + "://" + events.Host
	}
	p.policy = "default-src 'none'; script-src " + pageScriptHash + "; style-src 'unsafe-inline'; connect-src " + connect +
		"; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
	return p, nil
}

// pageURL parses the URL of field: a path, or an absolute http or https
// URL. An empty one is an error when required, nil otherwise.
func pageURL(field, raw string, required bool) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		if required {
			return nil, fmt.Errorf("live: NewPage: PageOptions.%s is empty: it is required, the URL the browser opens the stream at (where NewHandler's handler is mounted)", field)
		}
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("live: NewPage: PageOptions.%s: %w", field, err)
	}
	if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("live: NewPage: PageOptions.%s %q has scheme %q: it must be a path, or an http or https URL", field, raw, u.Scheme)
	}
	if u.IsAbs() && u.Host == "" {
		return nil, fmt.Errorf("live: NewPage: PageOptions.%s %q names no host", field, raw)
	}
	if !u.IsAbs() && u.Host != "" {
		return nil, fmt.Errorf("live: NewPage: PageOptions.%s %q is scheme-relative: give the scheme, or a path", field, raw)
	}
	return u, nil
}

type page struct {
	events *url.URL
	stream func(*http.Request) string
	inbox  string
	title  string
	policy string
}

// pageView is what page.html shows.
type pageView struct {
	Title, Stream, Events, Inbox string
	Script                       template.JS
}

func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "live: the page is read with GET", http.StatusMethodNotAllowed)
		return
	}
	stream := p.stream(r)
	if stream == "" {
		http.Error(w, "live: the request names no stream (?stream=<workflow ID>)", http.StatusBadRequest)
		return
	}
	events := *p.events
	q := events.Query()
	q.Set("stream", stream)
	events.RawQuery = q.Encode()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", p.policy)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	if err := pageTemplate.Execute(w, pageView{Title: p.title, Stream: stream, Events: events.String(), Inbox: p.inbox,
		Script: template.JS(pageScript)}); err != nil {
		http.Error(w, "live: "+err.Error(), http.StatusInternalServerError)
	}
}
