package main

import (
	"context"
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// Activities are the sample's plain activities: a model turn and a tool
// call, each failing its first attempts when asked, so that the budgets'
// retries happen. Register a value with worker.RegisterActivity.
type Activities struct{}

// ThinkRequest is one model turn.
type ThinkRequest struct {
	// Turn and Step name the model turn.
	Turn int    `json:"turn"`
	Step string `json:"step"`
	// Finding is what a tool found, for the model to use.
	Finding string `json:"finding,omitempty"`
	// FailAttempts is how many first attempts fail as an unavailable
	// provider does (retryable).
	FailAttempts int `json:"fail_attempts,omitempty"`
}

// Reply is a model turn's reply.
type Reply struct {
	// Text is the reply; Topic what the tool is to look up.
	Text  string `json:"text"`
	Topic string `json:"topic"`
}

// Think is a model turn (MODEL): a canned reply, after FailAttempts failed
// attempts.
func (*Activities) Think(ctx context.Context, req ThinkRequest) (Reply, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	if call.Attempt <= req.FailAttempts {
		return Reply{}, &temporaladk.ProviderUnavailableError{Provider: "sample", Message: fmt.Sprintf("turn %d %s: the model is overloaded (injected)", req.Turn, req.Step)}
	}
	topic := topics[req.Turn%len(topics)]
	return Reply{Text: fmt.Sprintf("turn %d, %s: about %s", req.Turn, req.Step, topic), Topic: topic}, nil
}

var topics = []string{"fares", "baggage", "seats", "lounges", "refunds", "connections"}

// LookupRequest is one tool call.
type LookupRequest struct {
	// Turn is the turn that asks; Topic what to look up.
	Turn  int    `json:"turn"`
	Topic string `json:"topic"`
	// FailAttempts is how many first attempts fail transiently.
	FailAttempts int `json:"fail_attempts,omitempty"`
}

// Finding is a tool call's answer.
type Finding struct {
	// Text is what the tool found.
	Text string `json:"text"`
}

// Lookup is a read-only tool (TOOL, declared READ_ONLY in KitOptions, so
// it gets the TOOL policy's attempts): a canned finding, after FailAttempts
// transient failures.
func (*Activities) Lookup(ctx context.Context, req LookupRequest) (Finding, error) {
	call, _ := temporaladk.ActivityCallFrom(ctx)
	if call.Attempt <= req.FailAttempts {
		return Finding{}, &temporaladk.ToolFailureError{Tool: "Lookup", Transient: true, Reason: fmt.Sprintf("turn %d: the service is busy (injected)", req.Turn)}
	}
	return Finding{Text: fmt.Sprintf("what the policy says about %s (turn %d)", req.Topic, req.Turn)}, nil
}

// ToolMaxAttempts is the TOOL policy's attempts in this sample, raised from
// the default of 1 so that Lookup (read-only) is retried after the
// transient failures the conversation injects: the default TOOL policy
// gives every tool one attempt, whatever it declares.
const ToolMaxAttempts = 3

// retryInterval is the first backoff window of the sample's MODEL and TOOL
// calls: short, so that a conversation of a hundred retries takes seconds.
// The kit draws each wait inside the activity, within this window.
const retryInterval = 50 * time.Millisecond

// KitOptions are the kit's options for the sample's worker and replayer:
// MODEL and TOOL retried after short waits, TOOL with ToolMaxAttempts, and
// Lookup declared read-only.
func KitOptions() (interceptors.Options, error) {
	model, err := policies.Default(temporaladk.Model)
	if err != nil {
		return interceptors.Options{}, err
	}
	tool, err := policies.Default(temporaladk.Tool)
	if err != nil {
		return interceptors.Options{}, err
	}
	for _, p := range []*policies.ActivityPolicy{&model, &tool} {
		p.Retry.InitialInterval, p.Retry.MaxInterval = retryInterval, 10*retryInterval
	}
	tool.Retry.MaxAttempts = ToolMaxAttempts
	return interceptors.Options{
		Policies: map[temporaladk.Class]policies.ActivityPolicy{temporaladk.Model: model, temporaladk.Tool: tool},
		Activities: map[string]temporaladk.Declaration{
			"Lookup": {Class: temporaladk.Tool, Idempotency: temporaladk.ReadOnly},
		},
	}, nil
}
