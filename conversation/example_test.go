package conversation_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	sdktestsuite "go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/payloads"
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

// Reply is a model's answer to the whole conversation it is given by
// reference: it reads the messages from the store.
func Reply(ctx context.Context, conv *conversation.Log[Msg]) (Msg, error) {
	msgs, err := conv.Messages(ctx)
	if err != nil {
		return Msg{}, err
	}
	return Msg{Role: "assistant", Content: fmt.Sprintf("I have read %d messages", len(msgs))}, nil
}

// Chat re-sends its conversation to Reply every turn, by reference.
func Chat(ctx workflow.Context, questions []string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	conv := conversation.NewLog[Msg]()
	var reply Msg
	for _, q := range questions {
		if err := conv.Append(ctx, Msg{Role: "user", Content: q}); err != nil {
			return "", err
		}
		if err := workflow.ExecuteActivity(ctx, Reply, conv).Get(ctx, &reply); err != nil {
			return "", err
		}
		if err := conv.Append(ctx, reply); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%s; the conversation holds %d messages", reply.Content, conv.Len()), nil
}

func ExampleLog() {
	dir, err := os.MkdirTemp("", "conversation-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	bucket, err := payloads.NewDirBucket(dir)
	if err != nil {
		panic(err)
	}
	store, err := payloads.NewStore(payloads.Options{Bucket: bucket})
	if err != nil {
		panic(err)
	}
	var suite sdktestsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	// A worker gets the store with its client: store.ClientOptions.
	env.SetDataConverter(store.DataConverter(nil))
	env.RegisterWorkflow(Chat)
	env.RegisterActivity(Reply)
	env.ExecuteWorkflow(Chat, []string{"What is durable execution?", "And replay?", "Thanks."})
	var result string
	if err := env.GetWorkflowResult(&result); err != nil {
		panic(err)
	}
	fmt.Println(result)
	// Output:
	// I have read 5 messages; the conversation holds 6 messages
}
