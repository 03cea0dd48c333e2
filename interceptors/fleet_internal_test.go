package interceptors

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUnitFleetIntervalDefault: an unset FleetOptions.Interval reads every
// DefaultFleetInterval; a set one is kept.
func TestUnitFleetIntervalDefault(t *testing.T) {
	t.Parallel()
	assert.Equal(t, DefaultFleetInterval, newFleet(FleetOptions{}).opts.Interval)
	assert.Equal(t, 2*DefaultFleetInterval, newFleet(FleetOptions{Interval: 2 * DefaultFleetInterval}).opts.Interval)
}

// Without FleetOptions, a call replayed as scheduled without the kit's
// approval gate is still reported: an Error line to the process's default
// slog logger, once per call.
func TestUnitUngatedCallReportedWithoutFleet(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	f := newFleet(FleetOptions{})
	f.ungatedCall("Agent", "agent-1", "run-1", "Refund", 1)
	f.ungatedCall("Agent", "agent-1", "run-1", "Refund", 1)
	out := buf.String()
	assert.Equal(t, 1, strings.Count(out, "level=ERROR"), "one report per call: %s", out)
	assert.Contains(t, out, "run run-1 of workflow agent-1 scheduled activity Refund, declared RequiresApproval on this worker, without the kit's approval gate")
}
