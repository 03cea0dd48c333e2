package interceptors

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/observe"
	"github.com/temporaladk/adk-go/temporaladk"
)

func (i *kitInterceptor) countRefusal(ctx workflow.Context, class temporaladk.Class, err error) {
	if workflow.IsReplaying(ctx) {
		return
	}
	var budget *temporaladk.BudgetExceededError
	if !errors.As(err, &budget) {
		return
	}
	workflow.GetMetricsHandler(ctx).WithTags(map[string]string{"class": class.Lower(), "budget": budget.Breached}).
		Counter(observe.MetricBudgetRefusals).Inc(1)
	workflow.GetLogger(ctx).Info("temporaladk: attempt refused by budget", "class", class.String(), "budget", budget.Breached, "attempts", budget.Attempts)
}
