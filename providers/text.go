package providers

import (
	"context"
	"errors"
	"fmt"
)

// TextKind says what a piece of streamed model output is.
type TextKind string

// The kinds of streamed model output.
const (
	// Text is the reply itself.
	Text TextKind = "text"
	// Reasoning is the model's reasoning, where the provider streams it.
	Reasoning TextKind = "reasoning"
)

// Check reports whether k is a kind of this package, naming it if not.
func (k TextKind) Check() error {
	if k != Text && k != Reasoning {
		return fmt.Errorf("providers: text kind %q is neither %q nor %q", string(k), Text, Reasoning)
	}
	return nil
}

// TextReporter receives the text a provider activity streams for the
// attempt it is serving. The kit's activity interceptor installs one (with
// WithTextReporter) when it has an observer, which may publish the text on
// a live stream. It is called on the goroutine that calls ReportText and
// must not block.
type TextReporter func(kind TextKind, text string)

type textReporterKey struct{}

// WithTextReporter returns ctx carrying report, which ReportText calls. A
// nil ctx or report is an error. The innermost reporter is the one called.
func WithTextReporter(ctx context.Context, report TextReporter) (context.Context, error) {
	if ctx == nil {
		return nil, errors.New("providers: WithTextReporter: ctx is nil")
	}
	if report == nil {
		return nil, errors.New("providers: WithTextReporter: report is nil")
	}
	return context.WithValue(ctx, textReporterKey{}, report), nil
}

// ReportText hands text, a delta of the model's output as the provider
// streamed it, to the reporter ctx carries, and reports whether there was
// one. A provider activity calls it for every delta, in order; nothing of it
// enters the workflow's history, and the attempt's result stays what the
// activity returns. Outside the kit (no reporter) it does nothing. A live
// stream that is down never makes it fail or wait: the only error is a kind
// that is not Text or Reasoning, and empty text is not reported.
func ReportText(ctx context.Context, kind TextKind, text string) (bool, error) {
	if err := kind.Check(); err != nil {
		return false, err
	}
	if ctx == nil || text == "" {
		return false, nil
	}
	report, ok := ctx.Value(textReporterKey{}).(TextReporter)
	if !ok {
		return false, nil
	}
	report(kind, text)
	return true, nil
}
