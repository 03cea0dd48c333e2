// Command quickstart is a whole agent on the kit in one file, on a dev server
// of its own: a MODEL call that reports its usage, a retrieval, an effectful
// tool with an idempotency key that 2 of 3 people approve, each decision
// signed, a run budget and a token budget kept across continue-as-new, a
// sub-agent, the approvers, the audit of who approved, and the replay of
// every run's history.
//
//	go run ./samples/quickstart
package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/conversation"
	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// Turns is how many turns the agent takes, one run each.
const Turns = 3

// Booking is the effectful tool's argument; its fields are its key.
type Booking struct{ Trip, Seat string }

// Agent takes Turns turns, one run each; the last has a sub-agent summarise.
func Agent(ctx workflow.Context, notes []string) ([]string, error) {
	ctx, err := temporaladk.WithBudgets(ctx, temporaladk.Budgets{Name: "agent", Attempts: 30, Tokens: 5_000, MaxTokens: 500, Model: "demo"})
	if err != nil {
		return nil, err
	}
	var docs, reply, summary, receipt string
	if err := workflow.ExecuteActivity(ctx, Search, len(notes)).Get(ctx, &docs); err != nil {
		return nil, err
	}
	if err := workflow.ExecuteActivity(ctx, Chat, append(notes, docs)).Get(ctx, &reply); err != nil {
		return nil, err
	}
	if notes = append(notes, reply); len(notes) < Turns {
		return nil, conversation.ContinueAsNew(ctx, Agent, notes)
	}
	if err := workflow.ExecuteChildWorkflow(ctx, Summarize, notes).Get(ctx, &summary); err != nil {
		return nil, err
	}
	if err := workflow.ExecuteActivity(ctx, Book, Booking{Trip: "lisbon", Seat: "12A"}).Get(ctx, &receipt); err != nil {
		return nil, err
	}
	return append(notes, summary, receipt, fmt.Sprintf("budgets %+v", temporaladk.BudgetsOf(ctx))), nil
}

// Summarize is the sub-agent, charged to the parent's budgets at its cap.
func Summarize(ctx workflow.Context, notes []string) (s string, err error) {
	err = workflow.ExecuteActivity(ctx, Chat, notes).Get(ctx, &s)
	return "summary: " + s, err
}

// Chat stands in for a model, and reports what it spent.
func Chat(ctx context.Context, prompt []string) (string, error) {
	_, err := providers.ReportUsage(ctx, providers.Usage{InputTokens: int64(10 * len(prompt)), OutputTokens: 20})
	return fmt.Sprintf("reply %d", len(prompt)), err
}

// Search stands in for retrieval.
func Search(ctx context.Context, turn int) (string, error) { return fmt.Sprintf("doc %d", turn), nil }

// Book stands in for a tool that charges a card.
func Book(ctx context.Context, b Booking) (string, error) { return "booked " + b.Seat, nil }

// Team are the three people who may approve a booking, each with a key of
// their own. Here the keys are made at start; in production each person
// holds theirs (or a passkey, contrib/passkey), and workers get only the
// public keys.
func Team() ([]*approvals.Signer, error) {
	var team []*approvals.Signer
	for _, name := range []string{"ana", "bo", "cy"} {
		_, key, err := ed25519.GenerateKey(nil)
		if err != nil {
			return nil, err
		}
		s, err := approvals.NewSigner(name+"-1", name, key)
		if err != nil {
			return nil, err
		}
		team = append(team, s)
	}
	return team, nil
}

// Kit declares each activity's class, timeouts and retries included, and
// who approves a booking: 2 of the people whose public keys are given, each
// decision signed and checked by the worker.
func Kit(keys ...approvals.PublicKey) (interceptors.Options, error) {
	verifier, err := approvals.NewEd25519Verifier(keys...)
	if err != nil {
		return interceptors.Options{}, err
	}
	twoOf, err := verifier.Approvers(2) // each principal named once, in its key
	if err != nil {
		return interceptors.Options{}, err
	}
	return interceptors.Options{
		Activities: map[string]temporaladk.Declaration{
			"Chat": {Class: temporaladk.Model}, "Search": {Class: temporaladk.Retrieval},
			"Book": {Class: temporaladk.Tool, Idempotency: temporaladk.Effectful, KeyFields: []string{"Trip", "Seat"}, RequiresApproval: true},
		},
		Approvals: approvals.WorkerOptions{Tools: map[string]approvals.Approvers{"Book": twoOf}, Verifier: verifier},
	}, nil
}

func main() {
	dir, err := os.MkdirTemp("", "quickstart")
	if err == nil {
		err = run(context.Background(), dir, os.Stdout)
		os.RemoveAll(dir)
	}
	if err != nil {
		log.Fatal("quickstart: ", err)
	}
}

// run runs the agent, approves its booking, and records and replays its runs.
func run(ctx context.Context, dir string, out io.Writer) error {
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{})
	if err != nil {
		return err
	}
	defer srv.Stop()
	team, err := Team()
	if err != nil {
		return err
	}
	kitOptions, err := Kit(team[0].PublicKey(), team[1].PublicKey(), team[2].PublicKey())
	if err != nil {
		return err
	}
	kit, err := interceptors.NewPlugin(kitOptions)
	if err != nil {
		return err
	}
	opts := worker.Options{Plugins: []worker.Plugin{kit}}
	w := worker.New(srv.Client(), "quickstart", opts)
	w.RegisterWorkflow(Agent)
	w.RegisterWorkflow(Summarize)
	for _, a := range []any{Chat, Search, Book} {
		w.RegisterActivity(a)
	}
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "trip", TaskQueue: "quickstart"}, Agent, []string{})
	if err != nil {
		return err
	}
	var notes []string
	if err := approve(ctx, srv.Client(), "trip", team[:2], out); err != nil {
		return err
	} else if err := run.Get(ctx, &notes); err != nil {
		return err
	}
	fmt.Fprintln(out, notes)
	files, err := testsuite.RecordAndReplay(ctx, srv.Client(), "trip", dir, testsuite.ReplayOptions{
		Workflows: []testsuite.ReplayWorkflow{{Func: Agent}, {Func: Summarize}}, Worker: opts})
	fmt.Fprintf(out, "%d runs recorded and replayed\n", len(files))
	return err
}

// approve is the approvers' side: it waits for the booking to ask, shows
// its arguments, and each of approvers signs an approval of it.
func approve(ctx context.Context, c client.Client, workflowID string, approvers []*approvals.Signer, out io.Writer) error {
	pending, err := approvals.WaitPending(ctx, c, workflowID, 1)
	if err != nil {
		return err
	}
	for _, a := range approvers {
		fmt.Fprintf(out, "%s approves %s %v\n", a.Principal(), pending[0].ActivityType, pending[0].Args)
		req, err := a.Approve(pending[0], "checked", time.Now().Add(10*time.Minute))
		if err == nil {
			err = approvals.Decide(ctx, c, workflowID, req)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
