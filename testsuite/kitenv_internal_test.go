package testsuite

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/activity"
)

// The retry-policy seam reads nothing from a nil context: a task without
// one has no retry settings. reliability's bad-input test held this while
// the seam was exported (ScheduledRetryPolicy); it is held here now.
func TestScheduledRetryPolicyOfANilContext(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context
	assert.Nil(t, scheduledRetryPolicy(nilCtx, activity.Info{}))
}
