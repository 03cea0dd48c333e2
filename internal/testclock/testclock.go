// Package testclock gives the project's tests their one fixed instant, so
// that CI can move it: a test that mixes the fixed date with the real clock
// (a real context deadline, a real timer, time.Now, a server's clock) passes
// on one date and fails on another, and running the suite with the epoch
// moved years ahead and years back makes that failure show at once instead
// of on the day the calendar crosses the fixed date.
//
//	now := testclock.Epoch(t) // 2026-11-30T12:00:00Z unless TEMPORALADK_TEST_EPOCH says otherwise
package testclock

import (
	"os"
	"testing"
	"time"
)

// EpochEnv is the environment variable that moves the tests' fixed instant:
// an RFC 3339 time, for example 2049-06-15T03:00:00+14:00.
const EpochEnv = "TEMPORALADK_TEST_EPOCH"

// defaultEpoch is the instant tests use when EpochEnv is not set.
var defaultEpoch = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Epoch returns the tests' fixed instant: EpochEnv when it is set, else
// 2026-11-30T12:00:00Z. A value that does not parse fails the test, naming
// the variable: a silent default would hide that the run did not test what
// it was asked to.
func Epoch(tb testing.TB) time.Time {
	tb.Helper()
	at, err := Parse(os.Getenv(EpochEnv))
	if err != nil {
		tb.Fatal(err)
	}
	return at
}

// Parse reads an EpochEnv value: empty means the default epoch.
func Parse(value string) (time.Time, error) {
	if value == "" {
		return defaultEpoch, nil
	}
	at, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, &EpochError{Value: value, Err: err}
	}
	return at, nil
}

// EpochError reports an EpochEnv value that is not an RFC 3339 time.
type EpochError struct {
	Value string
	Err   error
}

// Error names the variable and the value.
func (e *EpochError) Error() string {
	return EpochEnv + "=" + e.Value + " is not an RFC 3339 time: " + e.Err.Error()
}

// Unwrap returns the parse error.
func (e *EpochError) Unwrap() error { return e.Err }
