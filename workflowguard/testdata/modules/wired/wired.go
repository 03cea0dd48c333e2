// Package wired's workflow fetches through a Doer that only the worker's main wires in. // want package:`interface calls\(\(\*wired.Agent\).Run calls \(example.com/app/wired.Doer\).Do\)`
package wired

import "go.temporal.io/sdk/workflow"

// Doer sends a request.
type Doer interface {
	Do(url string) (string, error)
}

// Agent is the workflow, with its Doer.
type Agent struct{ HTTP Doer }

func (a *Agent) Run(ctx workflow.Context, url string) (string, error) {
	return a.HTTP.Do(url)
}
