package interceptors

import (
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
