package interceptors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/spend"
)

// New refuses a negative price, naming the model and the field, and an
// empty model name.
func TestUnitNewRefusesBadPrices(t *testing.T) {
	_, err := interceptors.New(interceptors.Options{Prices: map[string]spend.Price{"m1": {Input: 1}, "m2": {CachedInput: -1}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"m2"`)
	assert.Contains(t, err.Error(), "CachedInput")
	_, err = interceptors.New(interceptors.Options{Prices: map[string]spend.Price{"": {}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "empty model name")
	_, err = interceptors.New(interceptors.Options{Prices: map[string]spend.Price{"m1": {Input: 2 * spend.Dollar}}})
	assert.NoError(t, err)
}
