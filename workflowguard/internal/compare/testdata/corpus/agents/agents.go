// Package agents holds agent workflows that plan, call tools and report. Lines marked HAZARD
// must be reported, lines marked TRAP must not.
package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"time"

	"example.com/guardbench/infra"
	"go.temporal.io/sdk/workflow"
)

var clock = time.Now

var pickTemperature = rand.Float64

var normalize = strings.TrimSpace

type planner struct {
	now    func() time.Time
	score  func() float64
	format func(string) string
}

var defaultPlanner = planner{now: time.Now, score: rand.Float64, format: strings.ToUpper}

// Toolbox runs tools; implementations may do anything.
type Toolbox interface {
	Call(name string, args map[string]string) (string, error)
}

// localTools shells out on the worker.
type localTools struct{}

// Call reads the tool's script from disk.
func (localTools) Call(name string, args map[string]string) (string, error) {
	b, err := infraRead(name)
	return string(b), err
}

func infraRead(name string) ([]byte, error) { return readScript(name) }

var readScript = func(name string) ([]byte, error) { return nil, fmt.Errorf("no script %s at %s", name, time.Now()) }

// Agent is the workflow state.
type Agent struct {
	Tools Toolbox
	Clock infra.Clock
}

// PlanWorkflow plans the next steps of an agent.
func PlanWorkflow(ctx workflow.Context, goal string, tools map[string]string) ([]string, error) {
	started := clock()                   // HAZARD
	temp := pickTemperature()            // HAZARD
	deadline := defaultPlanner.now()     // HAZARD
	score := defaultPlanner.score()      // HAZARD
	elapsed := time.Since(started)       // HAZARD
	time.Sleep(50 * time.Millisecond)    // HAZARD
	seed := rand.Intn(100)               // HAZARD
	title := defaultPlanner.format(goal) // TRAP
	goal = normalize(goal)               // TRAP
	var steps []string
	for name, arg := range tools { // HAZARD
		_ = workflow.ExecuteActivity(ctx, "RunTool", name, arg)
	}
	for name := range tools { // TRAP
		steps = append(steps, name)
	}
	sort.Strings(steps)
	for _, name := range steps { // TRAP
		_ = workflow.ExecuteActivity(ctx, "RunTool", name)
	}
	for _, name := range slices.Sorted(maps.Keys(tools)) { // TRAP
		_ = workflow.ExecuteActivity(ctx, "Describe", name)
	}
	for name, arg := range tools { // TRAP
		workflow.GetLogger(ctx).Info("tool", "name", name, "arg", arg)
	}
	payload, _ := json.Marshal(tools) // TRAP
	_ = []any{temp, deadline, score, elapsed, seed, title, payload}
	return steps, nil
}

// Run is the agent loop, a workflow method.
func (a *Agent) Run(ctx workflow.Context, goal string) (string, error) {
	out, _ := a.Tools.Call("search", map[string]string{"q": goal}) // HAZARD
	at := a.Clock.Now()                                            // HAZARD
	id := infra.NewTicketer().Next()                               // HAZARD
	when := infra.Now()                                            // HAZARD
	r := workflow.GetRandomStream(ctx, "ids")                      // TRAP
	_ = r
	return fmt.Sprint(out, at, id, when), nil
}

// ReportWorkflow fans results in and out.
func ReportWorkflow(ctx workflow.Context, sections map[string]string) (string, error) {
	for title := range maps.Keys(sections) { // HAZARD
		_ = workflow.ExecuteChildWorkflow(ctx, "Summarize", title)
	}
	for title, body := range sections { // HAZARD
		notify(ctx, title, body)
	}
	total := 0
	for _, body := range sections { // TRAP
		total += len(body)
	}
	region := infra.Region()                                                                     // HAZARD
	prompt, _ := infra.LoadPrompt("report")                                                      // HAZARD
	stamp := time.Now().Format(time.RFC3339)                                                     // HAZARD
	res := workflow.SideEffect(ctx, func(ctx workflow.Context) any { return time.Now().Unix() }) // TRAP
	_ = res
	f := workflow.ExecuteLocalActivity(ctx, func(ctx context.Context) (string, error) { // TRAP
		return time.Now().String(), nil
	})
	_ = f
	return fmt.Sprint(total, region, prompt, stamp), nil
}

func notify(ctx workflow.Context, title, body string) {
	_ = workflow.SignalExternalWorkflow(ctx, "reporter", "", title, body)
}

// Summarize is an activity.
func Summarize(ctx context.Context, title string) (string, error) {
	return fmt.Sprint(title, time.Now(), rand.Int()), nil
}
