// Package wiredlib's workflow fetches through a one-method Doer and searches a vector index; it // want package:`interface calls\(\(\*wiredlib.Agent\).Run calls \(example.com/wiredlib.Index\).Nearest; \(\*wiredlib.Agent\).Run calls \(example.com/wiredlib.Doer\).Do; \(\*wiredlib.Researcher\).Run calls \(example.com/wiredlib.HTTPDoer\).Do; \(\*wiredlib.Researcher\).Run calls \(example.com/wiredlib.Source\).Read; \(\*wiredlib.Researcher\).Run calls \(example.com/wiredlib.Index\).Nearest\)\}$`
// sees no implementation of either: main wires them in.
package wiredlib

import "go.temporal.io/sdk/workflow"

// Doer sends a request.
type Doer interface {
	Do(url string) (string, error)
}

// Index finds the nearest documents.
type Index interface{ Nearest(query string) []string }

// Deps are what main wires in.
type Deps struct {
	HTTP  Doer
	Index Index
}

// Agent is the workflow, with its dependencies.
type Agent struct{ Deps Deps }

func (a *Agent) Run(ctx workflow.Context, q string) (string, error) {
	_ = a.Deps.Index.Nearest(q)
	return a.Deps.HTTP.Do("https://example.com/?q=" + q)
}

// Activities run activity-side, where an index may query a database.
type Activities struct{ Index Index }
