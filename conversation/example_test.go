package conversation_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// Turn is one model call of the agent; its first attempt fails, so every
// turn costs two attempts of the budget.
func Turn(ctx context.Context, n int) (string, error) {
	if activity.GetInfo(ctx).Attempt == 1 {
		return "", &temporaladk.ProviderUnavailableError{Provider: "example", Message: "try again"}
	}
	return fmt.Sprintf("reply %d", n), nil
}

// Agent takes turns under one named budget of 10 attempts, and continues
// as new every two turns: each run of the chain spends the same budget.
func Agent(ctx workflow.Context, turn int) (string, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "turns", Attempts: 10})
	if err != nil {
		return "", err
	}
	ctx = workflow.WithActivityOptions(temporaladk.WithClass(ctx, temporaladk.Model), workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	for range 2 {
		var reply string
		if err := workflow.ExecuteActivity(ctx, Turn, turn).Get(ctx, &reply); err != nil {
			turns := temporaladk.BudgetsOf(ctx)[0]
			return fmt.Sprintf("turn %d: spent %d of %d", turn, turns.Spent, turns.Limit), nil
		}
		turn++
	}
	return "", conversation.ContinueAsNew(ctx, Agent, turn)
}

func ExampleContinueAsNew() {
	var suite sdktestsuite.WorkflowTestSuite
	// The test environment's own log lines would mix with the output.
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	var turn int
	var prev *workflow.ContinueAsNewError
	// The test environment runs one run at a time: each run's
	// continue-as-new hands the next its input and its start header, in
	// which the kit carries the budget.
	for run := 1; ; run++ {
		env, err := testsuite.NewKitTestEnvironment(&suite, interceptors.Options{})
		if err != nil {
			panic(err)
		}
		env.RegisterWorkflow(Agent)
		env.RegisterActivity(Turn)
		if prev != nil {
			env.SetHeader(prev.Header)
		}
		env.ExecuteWorkflow(Agent, turn)
		var can *workflow.ContinueAsNewError
		if errors.As(env.GetWorkflowError(), &can) {
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &turn); err != nil {
				panic(err)
			}
			fmt.Printf("run %d continued as new at turn %d\n", run, turn)
			prev = can
			continue
		}
		var result string
		if err := env.GetWorkflowResult(&result); err != nil {
			panic(err)
		}
		fmt.Printf("run %d: %s\n", run, result)
		break
	}
	// Output:
	// run 1 continued as new at turn 2
	// run 2 continued as new at turn 4
	// run 3: turn 5: spent 10 of 10
}
