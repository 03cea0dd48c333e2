package interceptors

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/temporaladk/adk-go/internal/charge"
)

// The ledger records the metrics of token and cost budgets under the names
// interceptors documents.
func TestSpendMetricNamesAreTheLedgers(t *testing.T) {
	t.Parallel()
	assert.Equal(t, charge.MetricTokensReserved, MetricTokensReserved)
	assert.Equal(t, charge.MetricTokensSettled, MetricTokensSettled)
	assert.Equal(t, charge.MetricCostReserved, MetricCostReserved)
	assert.Equal(t, charge.MetricCostSettled, MetricCostSettled)
}
