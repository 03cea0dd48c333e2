package main

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/spend"
	"github.com/temporaladk/adk-go/temporaladk"
)

// TaskQueue is the task queue the sample's worker polls.
const TaskQueue = "temporaladk-conversation-sample"

// The names the conversation's budgets go by in every run of its chain.
const (
	// BudgetName is the run budget: every attempt of every call of the
	// conversation, its sub-agents' included, across all its runs.
	BudgetName = "conversation"
	// PoolName is the retry pool the conversation's calls share across
	// all its runs.
	PoolName = "retries"
)

// Input is the conversation's input, and what one run hands the next.
type Input struct {
	// ID names the conversation: its sub-agents' workflow IDs are made
	// from it. It is input, not workflow.GetInfo's workflow ID, which a
	// replayer of a recorded history does not reproduce.
	ID string `json:"id"`
	// MaxTurns is how many turns the conversation takes at most, across
	// all its runs.
	MaxTurns int `json:"max_turns"`
	// Ceiling is the attempts the whole conversation may spend
	// (temporaladk.Budgets.Attempts, named BudgetName), its sub-agents' included.
	Ceiling int `json:"ceiling"`
	// Retries is the retries its calls share (temporaladk.Budgets.Retries,
	// named PoolName).
	Retries int `json:"retries"`
	// UpdateLimit is the Updates per run the workflow counts against
	// (conversation.WithUpdateLimit): the server's
	// history.maxTotalUpdates.
	UpdateLimit int `json:"update_limit"`
	// SubAgentEvery delegates every n-th turn to a sub-agent child
	// workflow.
	SubAgentEvery int `json:"sub_agent_every"`

	// Turn is the turns taken before this run; Run is this run's number
	// in the chain, from 1.
	Turn int `json:"turn"`
	Run  int `json:"run"`
}

// DefaultInput is the conversation `go run ./samples/conversation` holds.
func DefaultInput() Input {
	return Input{MaxTurns: 60, Ceiling: 150, Retries: 60, UpdateLimit: DefaultUpdateLimit, SubAgentEvery: 4, Run: 1}
}

// DefaultUpdateLimit is the Updates per run in the sample: small, so that a
// run of a few dozen turns continues as new. A real server accepts 2,000
// (conversation.DefaultUpdateLimit); the dev server the sample starts is
// told the same small number (history.maxTotalUpdates), so that the server
// and the workflow agree.
const DefaultUpdateLimit = 40

// validate reports what is wrong with an input.
func (in Input) validate() error {
	switch {
	case in.ID == "":
		return errors.New("ID is empty: it names the conversation's sub-agents")
	case in.MaxTurns < 1:
		return fmt.Errorf("MaxTurns is %d: it must be at least 1", in.MaxTurns)
	case in.Ceiling < 1:
		return fmt.Errorf("Ceiling is %d: it must be at least 1", in.Ceiling)
	case in.Retries < 0:
		return fmt.Errorf("Retries is %d: it must not be negative", in.Retries)
	case in.UpdateLimit < maxTurnUpdates+1:
		return fmt.Errorf("UpdateLimit is %d: a turn asks for up to %d Updates, so it must be at least %d", in.UpdateLimit, maxTurnUpdates, maxTurnUpdates+1)
	case in.SubAgentEvery < 1:
		return fmt.Errorf("SubAgentEvery is %d: it must be at least 1", in.SubAgentEvery)
	case in.Turn < 0 || in.Run < 1:
		return fmt.Errorf("Turn %d, Run %d: a chain starts at turn 0, run 1", in.Turn, in.Run)
	}
	return nil
}

// maxTurnUpdates is the most charge Updates one turn asks of the
// conversation's run: a turn of its own retries its model turn and its tool
// call once at most (two Updates), a sub-agent's turn is four attempts, each
// charged at the parent. A run continues as new at nine tenths of its
// UpdateLimit, so one more turn must fit in the tenth left.
const maxTurnUpdates = 4

// Result is the conversation's end, returned by its last run.
type Result struct {
	// Turns is the turns taken across the chain; Runs the runs.
	Turns int `json:"turns"`
	Runs  int `json:"runs"`
	// StoppedBy is "turns" when MaxTurns were taken, "budget" when the
	// ceiling refused the next attempt.
	StoppedBy string `json:"stopped_by"`
	// Refusal is the budget's refusal when StoppedBy is "budget".
	Refusal string `json:"refusal,omitempty"`
	// Spent and Limit are the run budget at the end; PoolUsed and PoolSize
	// the retry pool.
	Spent    int `json:"spent"`
	Limit    int `json:"limit"`
	PoolUsed int `json:"pool_used"`
	PoolSize int `json:"pool_size"`
	// PoolRefusals is the retries the pool refused in the last run.
	PoolRefusals int `json:"pool_refusals"`
}

// a is the nil receiver the workflows name activity methods by; the worker
// registers a real *Activities.
var a *Activities

// Conversation is a long agent conversation: turn after turn of a model
// call and a tool call, every SubAgentEvery-th turn delegated to a SubAgent
// child, all under one run budget and one retry pool that carry across
// continue-as-new. It continues as new when its run comes near the Updates
// a run accepts, and stops after MaxTurns or when the budget refuses.
func Conversation(ctx workflow.Context, in Input) (Result, error) {
	if err := in.validate(); err != nil {
		return Result{}, fmt.Errorf("conversation: input: %w", err)
	}
	ctx, err := conversation.WithUpdateLimit(ctx, in.UpdateLimit)
	if err != nil {
		return Result{}, err
	}
	// The ceiling and the pool keep the names their recorded histories
	// carry, so that every run of an old chain restores them.
	if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: BudgetName, Attempts: in.Ceiling}); err != nil {
		return Result{}, err
	}
	if ctx, err = temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: PoolName, Retries: in.Retries}); err != nil {
		return Result{}, err
	}
	poolRefusals := 0
	finish := func(stoppedBy string, refused *temporaladk.BudgetExceededError) (Result, error) {
		res := Result{Turns: in.Turn, Runs: in.Run, StoppedBy: stoppedBy, PoolRefusals: poolRefusals}
		for _, b := range temporaladk.BudgetsOf(ctx) {
			switch b.Kind {
			case spend.KindAttempts:
				res.Spent, res.Limit = int(b.Spent), int(b.Limit)
			case spend.KindRetries:
				res.PoolUsed, res.PoolSize = int(b.Spent), int(b.Limit)
			}
		}
		if refused != nil {
			res.Refusal = refused.Error()
		}
		return res, nil
	}
	for in.Turn < in.MaxTurns {
		if conversation.ShouldContinueAsNew(ctx) {
			next := in
			next.Run++
			return Result{}, conversation.ContinueAsNew(ctx, Conversation, next)
		}
		turn := in.Turn + 1
		var out turnOutcome
		if turn%in.SubAgentEvery == 0 {
			out, err = delegate(ctx, in, turn)
		} else {
			out, err = ownTurn(ctx, turn)
		}
		if err != nil {
			return Result{}, err
		}
		poolRefusals += out.poolRefusals
		if out.stop != nil {
			return finish("budget", out.stop)
		}
		in.Turn = turn
	}
	return finish("turns", nil)
}

// turnOutcome is what a turn left: the pool's refusals, and the run
// budget's refusal that ends the conversation.
type turnOutcome struct {
	poolRefusals int
	stop         *temporaladk.BudgetExceededError
}

// ownTurn is a turn of the conversation's own: a model turn (MODEL), whose
// first attempt fails on odd turns, and a tool call (TOOL, read-only), whose
// first attempt fails on every third turn. A retry the pool refuses leaves
// the turn without that answer; the ceiling's refusal ends the conversation.
func ownTurn(ctx workflow.Context, turn int) (turnOutcome, error) {
	var out turnOutcome
	var reply Reply
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), a.Think,
		ThinkRequest{Turn: turn, Step: "reply", FailAttempts: turn % 2}).Get(ctx, &reply)
	if done, err := out.refused(err); done || err != nil {
		return out, err
	}
	var found Finding
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Tool), a.Lookup,
		LookupRequest{Turn: turn, Topic: reply.Topic, FailAttempts: boolInt(turn%3 == 0)}).Get(ctx, &found)
	_, err = out.refused(err)
	return out, err
}

// delegate gives a turn to a SubAgent child, started on the conversation's
// budgets: its calls are charged to this run's ledger, every attempt.
func delegate(ctx workflow.Context, in Input, turn int) (turnOutcome, error) {
	var out turnOutcome
	childCtx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: fmt.Sprintf("%s/subagent-%d", in.ID, turn),
	})
	var res SubAgentResult
	if err := workflow.ExecuteChildWorkflow(childCtx, SubAgent, SubAgentInput{Turn: turn}).Get(ctx, &res); err != nil {
		return out, fmt.Errorf("conversation: sub-agent of turn %d: %w", turn, err)
	}
	out.poolRefusals = res.PoolRefusals
	if res.Refused != nil && res.Refused.Breached == "attempts" {
		out.stop = res.Refused
	}
	return out, nil
}

// refused sorts a call's error: nil, a retry the pool refused (counted, the
// turn goes on), the ceiling's refusal (done: the conversation stops), or
// another error, returned.
func (o *turnOutcome) refused(err error) (done bool, _ error) {
	if err == nil {
		return false, nil
	}
	var refused *temporaladk.BudgetExceededError
	if !errors.As(temporaladk.FromApplicationError(err), &refused) {
		return true, fmt.Errorf("conversation: %w", err)
	}
	if refused.Breached == "retries" {
		o.poolRefusals++
		return false, nil
	}
	o.stop = refused
	return true, nil
}

// SubAgentInput is a sub-agent's task.
type SubAgentInput struct {
	// Turn is the conversation's turn the sub-agent takes.
	Turn int `json:"turn"`
}

// SubAgentResult is what a sub-agent did with its budget.
type SubAgentResult struct {
	// Summary is the sub-agent's answer.
	Summary string `json:"summary"`
	// PoolRefusals is the retries the parent's pool refused it.
	PoolRefusals int `json:"pool_refusals"`
	// Refused is the parent's ceiling's refusal that stopped it, if any.
	Refused *temporaladk.BudgetExceededError `json:"refused,omitempty"`
}

// SubAgent is a sub-agent: plan (MODEL), look up (TOOL, its first attempt
// fails) and summarise (MODEL). It names no budget of its own: started on
// its parent's budgets, every attempt of its calls is charged there.
func SubAgent(ctx workflow.Context, in SubAgentInput) (SubAgentResult, error) {
	var res SubAgentResult
	var out turnOutcome
	var plan Reply
	err := workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), a.Think,
		ThinkRequest{Turn: in.Turn, Step: "sub-agent plan"}).Get(ctx, &plan)
	if done, err := out.refused(err); done || err != nil {
		res.PoolRefusals, res.Refused = out.poolRefusals, out.stop
		return res, err
	}
	var found Finding
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Tool), a.Lookup,
		LookupRequest{Turn: in.Turn, Topic: plan.Topic, FailAttempts: 1}).Get(ctx, &found)
	if done, err := out.refused(err); done || err != nil {
		res.PoolRefusals, res.Refused = out.poolRefusals, out.stop
		return res, err
	}
	var summary Reply
	err = workflow.ExecuteActivity(temporaladk.WithClass(ctx, temporaladk.Model), a.Think,
		ThinkRequest{Turn: in.Turn, Step: "sub-agent summary", Finding: found.Text}).Get(ctx, &summary)
	_, err = out.refused(err)
	res.Summary, res.PoolRefusals, res.Refused = summary.Text, out.poolRefusals, out.stop
	return res, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
