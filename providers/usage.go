package providers

import (
	"context"
	"errors"
	"fmt"

	"github.com/temporaladk/adk-go/spend"
)

// Usage is what a provider counted for one model call, as it reported it:
// InputTokens, OutputTokens and CachedInputTokens. It is spend.Usage, the
// one usage type of the kit, which settles token and cost budgets.
type Usage = spend.Usage

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
		return false, fmt.Errorf("providers: ReportUsage: %w", err)
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
