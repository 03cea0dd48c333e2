package interceptors

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/temporaladk/adk-go/observe"
)

// The ledger records the metrics of token and cost budgets under the names
// interceptors documents.
func TestSpendMetricNamesAreTheLedgers(t *testing.T) {
	t.Parallel()
	assert.Equal(t, observe.MetricTokensReserved, observe.MetricTokensReserved)
	assert.Equal(t, observe.MetricTokensSettled, observe.MetricTokensSettled)
	assert.Equal(t, observe.MetricCostReserved, observe.MetricCostReserved)
	assert.Equal(t, observe.MetricCostSettled, observe.MetricCostSettled)
}
