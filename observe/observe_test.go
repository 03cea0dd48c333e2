package observe_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/observe"
)

// counting is an Observer that numbers the calls it gets, in one log
// shared by the observers of a test.
type counting struct {
	observe.Base
	name string
	log  *[]string
}

func (c counting) AttemptStarted(context.Context, observe.Attempt) {
	*c.log = append(*c.log, c.name+" started")
}

func (c counting) AttemptEnded(context.Context, observe.Attempt, observe.Outcome) {
	*c.log = append(*c.log, c.name+" ended")
}

func (c counting) TextDelta(context.Context, observe.Attempt, observe.Delta) {
	*c.log = append(*c.log, c.name+" delta")
}

func (c counting) Charged(workflow.Context, observe.Charge) {
	*c.log = append(*c.log, c.name+" charged")
}

func (c counting) BudgetRefused(workflow.Context, observe.Refusal) {
	*c.log = append(*c.log, c.name+" refused")
}

func (c counting) CallPlanned(workflow.Context, observe.Call) {
	*c.log = append(*c.log, c.name+" planned")
}

func (c counting) CallEnded(workflow.Context, observe.Call, observe.CallEnd) {
	*c.log = append(*c.log, c.name+" call ended")
}

func (c counting) ApprovalAsked(workflow.Context, observe.Approval) {
	*c.log = append(*c.log, c.name+" asked")
}

func (c counting) ApprovalDecided(workflow.Context, observe.Approval, observe.Decision) {
	*c.log = append(*c.log, c.name+" decided")
}

func (c counting) TokensReserved(workflow.Context, observe.Reservation) {
	*c.log = append(*c.log, c.name+" reserved")
}

func (c counting) UsageSettled(workflow.Context, observe.Settlement) {
	*c.log = append(*c.log, c.name+" settled")
}

// TestJoinCallsEachObserverInOrder: Join calls every observer it is given,
// in the order given, for every method.
func TestJoinCallsEachObserverInOrder(t *testing.T) {
	t.Parallel()
	var log []string
	j, err := observe.Join(counting{name: "a", log: &log}, counting{name: "b", log: &log})
	require.NoError(t, err)
	j.AttemptStarted(context.Background(), observe.Attempt{})
	j.AttemptEnded(context.Background(), observe.Attempt{}, observe.Outcome{})
	j.TextDelta(context.Background(), observe.Attempt{}, observe.Delta{})
	j.Charged(nil, observe.Charge{})
	j.BudgetRefused(nil, observe.Refusal{})
	j.CallPlanned(nil, observe.Call{})
	j.CallEnded(nil, observe.Call{}, observe.CallEnd{})
	j.ApprovalAsked(nil, observe.Approval{})
	j.ApprovalDecided(nil, observe.Approval{}, observe.Decision{})
	j.TokensReserved(nil, observe.Reservation{})
	j.UsageSettled(nil, observe.Settlement{})
	assert.Equal(t, []string{"a started", "b started", "a ended", "b ended", "a delta", "b delta", "a charged", "b charged", "a refused", "b refused",
		"a planned", "b planned", "a call ended", "b call ended", "a asked", "b asked", "a decided", "b decided",
		"a reserved", "b reserved", "a settled", "b settled"}, log)
}

// TestJoinRefusesNil: a nil observer is an error naming its place, never
// skipped.
func TestJoinRefusesNil(t *testing.T) {
	t.Parallel()
	var log []string
	for _, tc := range []struct {
		name      string
		observers []observe.Observer
		want      string
	}{
		{"alone", []observe.Observer{nil}, "observer 1 of 1 is nil"},
		{"second", []observe.Observer{counting{log: &log}, nil}, "observer 2 of 2 is nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j, err := observe.Join(tc.observers...)
			assert.Nil(t, j)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestJoinOfOneIsIt and of none is a no-op.
func TestJoinOfOneIsIt(t *testing.T) {
	t.Parallel()
	var log []string
	one := counting{name: "a", log: &log}
	j, err := observe.Join(one)
	require.NoError(t, err)
	assert.Equal(t, observe.Observer(one), j)
	none, err := observe.Join()
	require.NoError(t, err)
	none.AttemptStarted(context.Background(), observe.Attempt{})
	assert.Empty(t, log)
}

// TestBaseDoesNothing: Base's methods may be called with zero values.
func TestBaseDoesNothing(t *testing.T) {
	t.Parallel()
	var b observe.Observer = observe.Base{}
	b.AttemptStarted(context.Background(), observe.Attempt{})
	b.AttemptEnded(context.Background(), observe.Attempt{}, observe.Outcome{})
	b.TextDelta(context.Background(), observe.Attempt{}, observe.Delta{})
	b.Charged(nil, observe.Charge{})
	b.BudgetRefused(nil, observe.Refusal{})
	b.CallPlanned(nil, observe.Call{})
	b.CallEnded(nil, observe.Call{}, observe.CallEnd{})
	b.ApprovalAsked(nil, observe.Approval{})
	b.ApprovalDecided(nil, observe.Approval{}, observe.Decision{})
	b.TokensReserved(nil, observe.Reservation{})
	b.UsageSettled(nil, observe.Settlement{})
}
