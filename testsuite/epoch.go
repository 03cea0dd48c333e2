package testsuite

import (
	"testing"
	"time"

	"github.com/temporaladk/adk-go/internal/testclock"
)

// Epoch is the one fixed instant of the project's tests, for tests outside
// the core module (contrib): 2026-11-30T12:00:00Z, unless the environment
// variable TEMPORALADK_TEST_EPOCH moves it, as CI's date-shifted runs do, so
// that a test that mixes a fixed date with a real clock fails at once
// instead of on the day the calendar crosses it. A value it cannot read
// fails tb, naming it.
func Epoch(tb testing.TB) time.Time {
	tb.Helper()
	return testclock.Epoch(tb)
}
