package testclock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
)

func TestParse(t *testing.T) {
	t.Parallel()
	def, err := testclock.Parse("")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), def)

	moved, err := testclock.Parse("2049-06-15T03:00:00+14:00")
	require.NoError(t, err)
	assert.True(t, moved.Equal(time.Date(2049, 6, 14, 13, 0, 0, 0, time.UTC)))

	_, err = testclock.Parse("tomorrow")
	var bad *testclock.EpochError
	require.True(t, errors.As(err, &bad))
	assert.ErrorContains(t, err, "TEMPORALADK_TEST_EPOCH=tomorrow is not an RFC 3339 time")
}

func TestEpochFollowsTheEnvironment(t *testing.T) {
	t.Setenv(testclock.EpochEnv, "1999-12-31T23:59:59Z")
	assert.Equal(t, time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC), testclock.Epoch(t))
}
