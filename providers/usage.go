package providers

import (
	"context"
	"errors"
	"fmt"
)

// Usage is what a provider counted for one model call, as it reported it.
type Usage struct {
	// InputTokens are all the prompt's tokens, the cached ones included.
	InputTokens int64 `json:"input_tokens"`
	// OutputTokens are the completion's tokens.
	OutputTokens int64 `json:"output_tokens"`
	// CachedInputTokens are the part of InputTokens the provider read from
	// its prompt cache (and may price lower); never more than InputTokens.
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
}

// IsZero reports whether u counts nothing: the provider reported no usage.
func (u Usage) IsZero() bool { return u == Usage{} }

// Check reports what is wrong with u, naming the field: a negative count, or
// more cached input tokens than input tokens.
func (u Usage) Check() error {
	switch {
	case u.InputTokens < 0:
		return fmt.Errorf("providers: Usage.InputTokens is %d: it must not be negative", u.InputTokens)
	case u.OutputTokens < 0:
		return fmt.Errorf("providers: Usage.OutputTokens is %d: it must not be negative", u.OutputTokens)
	case u.CachedInputTokens < 0:
		return fmt.Errorf("providers: Usage.CachedInputTokens is %d: it must not be negative", u.CachedInputTokens)
	case u.CachedInputTokens > u.InputTokens:
		return fmt.Errorf("providers: Usage.CachedInputTokens is %d, more than InputTokens (%d): the cached tokens are part of the input", u.CachedInputTokens, u.InputTokens)
	}
	return nil
}

// UsageRecorder receives the usage an activity reports for the attempt it
// is serving. The kit's activity interceptor installs one (with
// WithUsageRecorder) to settle a token or cost budget with what the provider
// counted. It is called on the goroutine that calls ReportUsage.
type UsageRecorder func(Usage)

type usageRecorderKey struct{}

// WithUsageRecorder returns ctx carrying record, which ReportUsage calls. A
// nil record is an error: a context that carries no recorder is ctx itself.
// The innermost recorder is the one called.
func WithUsageRecorder(ctx context.Context, record UsageRecorder) (context.Context, error) {
	if ctx == nil {
		return nil, errors.New("providers: WithUsageRecorder: ctx is nil")
	}
	if record == nil {
		return nil, errors.New("providers: WithUsageRecorder: record is nil")
	}
	return context.WithValue(ctx, usageRecorderKey{}, record), nil
}

// ReportUsage reports u, the usage the provider reported for one model call
// of the current attempt, to the recorder ctx carries, and reports whether
// there was one to call. A provider activity calls it once per model call,
// after the call, whether it succeeded or failed, whenever the provider
// reported usage; an activity that makes two calls reports twice, and the
// recorder adds them up. Outside the kit (no recorder) it does nothing and
// returns false. A u that fails Check is an error, and is not reported.
func ReportUsage(ctx context.Context, u Usage) (bool, error) {
	if err := u.Check(); err != nil {
		return false, err
	}
	if ctx == nil {
		return false, nil
	}
	record, ok := ctx.Value(usageRecorderKey{}).(UsageRecorder)
	if !ok {
		return false, nil
	}
	record(u)
	return true, nil
}
