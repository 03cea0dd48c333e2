package observe_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

// OutcomeOf types an attempt's error the one way the live observer and
// observe/recorded both read it.
func TestOutcomeOf(t *testing.T) {
	assert.Equal(t, observe.Outcome{}, observe.OutcomeOf(nil), "a success has no outcome but itself")

	refused := &temporaladk.BudgetExceededError{Breached: "attempts", Limit: 2, Consumed: 2, Attempts: 2}
	got := observe.OutcomeOf(refused)
	assert.Equal(t, temporaladk.TypeBudgetExceeded, got.ErrorType, "a kit error's Type")
	assert.Equal(t, refused, got.Refused, "and its refusal")

	app := temporal.NewApplicationError("slow down", "ShopQuota")
	got = observe.OutcomeOf(app)
	assert.Equal(t, "ShopQuota", got.ErrorType, "an ApplicationError's type")
	assert.Nil(t, got.Refused)
	assert.Nil(t, got.Retry)

	timeout := temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, errors.New("late"))
	assert.Equal(t, "StartToClose", observe.OutcomeOf(timeout).ErrorType, "a timeout's type")

	assert.Empty(t, observe.OutcomeOf(errors.New("plain")).ErrorType, "a plain error has no type")
}
