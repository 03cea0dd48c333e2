package wiredlib

import (
	"net/http"

	"go.temporal.io/sdk/workflow"
)

// HTTPDoer is what *http.Client has: main hands the client itself, not a wrapper of its own.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Source reads a document.
type Source interface{ Read(p []byte) (int, error) }

// Researcher is a workflow whose dependencies main hands to its constructor and options.
type Researcher struct {
	Client HTTPDoer
	Docs   Source
	Index  Index
}

// Option sets a dependency of a Researcher.
type Option func(*Researcher)

// WithIndex searches ix.
func WithIndex(ix Index) Option { return func(r *Researcher) { r.Index = ix } }

// NewResearcher returns a Researcher over client and ix.
func NewResearcher(client HTTPDoer, ix Index, opts ...Option) *Researcher {
	r := &Researcher{Client: client, Index: ix}
	for _, o := range opts {
		o(r)
	}
	return r
}

func (r *Researcher) Run(ctx workflow.Context, q string) error {
	req, err := http.NewRequest(http.MethodGet, "https://example.com/?q="+q, nil)
	if err != nil {
		return err
	}
	if _, err := r.Client.Do(req); err != nil {
		return err
	}
	_, _ = r.Docs.Read(make([]byte, 8))
	_ = r.Index.Nearest(q)
	return nil
}

// Tools are the activities' own client, handed over by main too.
type Tools struct{ Client HTTPDoer }

// NewTools returns the activities' tools.
func NewTools(client HTTPDoer) *Tools { return &Tools{Client: client} }
