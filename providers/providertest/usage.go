package providertest

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/temporaladk/adk-go/providers"
)

// UsageLog keeps the usage reports (providers.ReportUsage) of an activity
// under test, in order. It is safe for concurrent use.
type UsageLog struct {
	mu      sync.Mutex
	reports []providers.Usage
}

// RecordUsage returns ctx carrying a usage recorder, as the kit's activity
// interceptor installs one for an attempt, and the log it writes to.
func RecordUsage(t testing.TB, ctx context.Context) (context.Context, *UsageLog) {
	t.Helper()
	log := &UsageLog{}
	ctx, err := providers.WithUsageRecorder(ctx, func(u providers.Usage) {
		log.mu.Lock()
		defer log.mu.Unlock()
		log.reports = append(log.reports, u)
	})
	if err != nil {
		t.Fatalf("providertest: RecordUsage: %v", err)
	}
	return ctx, log
}

// Reports are the usages reported so far, in order; nil when none was.
func (l *UsageLog) Reports() []providers.Usage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reports)
}
