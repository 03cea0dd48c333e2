package agents

import (
	"context"
	"maps"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Doer sends HTTP requests; *http.Client is one.
type Doer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Index finds the documents nearest a query.
type Index interface {
	Nearest(ctx context.Context, query string, k int) ([]string, error)
}

// Researcher is a workflow struct whose dependencies the worker hands to NewResearcher.
type Researcher struct {
	client Doer
	index  Index
}

// NewResearcher returns a Researcher over client and index.
func NewResearcher(client Doer, index Index) *Researcher {
	return &Researcher{client: client, index: index}
}

// Fetcher is the activities' own client.
type Fetcher struct{ client Doer }

// NewFetcher returns the activities' fetcher.
func NewFetcher(client Doer) *Fetcher { return &Fetcher{client: client} }

// Tool is a registry entry whose function is called through reflection.
type Tool struct {
	Name string
	Fn   any
}

var toolRegistry = []Tool{{Name: "sample", Fn: rand.IntN}, {Name: "upper", Fn: strings.ToUpper}}

// ActivityDef names an activity function, which only the SDK calls.
type ActivityDef struct {
	Name string
	Fn   any
}

var activityDefs = []ActivityDef{{Name: "sample", Fn: rand.IntN}}

var commands = map[string]func() string{}

var formatters = map[string]func(string) string{}

// RegisterCommand adds a command at start-up.
func RegisterCommand(name string, f func() string) { commands[name] = f }

// RegisterFormatter adds a formatter at start-up.
func RegisterFormatter(name string, f func(string) string) { formatters[name] = f }

func init() {
	RegisterCommand("stamp", func() string { return time.Now().Format(time.RFC3339) })
	RegisterFormatter("upper", strings.ToUpper)
}

var embeddings = struct {
	sync.Mutex
	byText map[string][]float64
}{byText: map[string][]float64{}}

var models = struct{ byTask map[string]string }{byTask: map[string]string{}}

func init() { models.byTask["plan"] = "small" }

// Embed is an activity that keeps what it computed for the next runs on this worker.
func Embed(ctx context.Context, text string) ([]float64, error) {
	embeddings.Lock()
	defer embeddings.Unlock()
	v := []float64{float64(len(text))}
	embeddings.byText[text] = v
	return v, nil
}

func sourceOrder(sources map[string]int) []string { return slices.Collect(maps.Keys(sources)) }

func sortedSources(sources map[string]int) []string { return slices.Sorted(maps.Keys(sources)) }

// Research gathers sources, searches the index and answers queries about its progress.
func (r *Researcher) Research(ctx workflow.Context, q string, sources map[string]int) (string, error) {
	req, err := http.NewRequest(http.MethodGet, "https://search.example.com/?q="+q, nil)
	if err != nil {
		return "", err
	}
	if _, err := r.client.Do(req); err != nil {
		return "", err
	}
	if _, err := r.index.Nearest(context.Background(), q, 5); err != nil {
		return "", err
	}
	picks := rand.New(workflow.GetRandomStream(ctx, "research"))
	step := 0
	_ = workflow.SetQueryHandler(ctx, "sample", func() (int, error) {
		return picks.IntN(len(sources) + 1), nil // HAZARD
	})
	_ = workflow.SetQueryHandler(ctx, "progress", func() (int, error) {
		return step, nil // TRAP
	})
	for _, t := range toolRegistry {
		if t.Name == q {
			_ = reflect.ValueOf(t.Fn).Call(nil) // HAZARD
		}
	}
	for _, a := range activityDefs {
		_ = workflow.ExecuteActivity(ctx, a.Fn, 3) // TRAP
	}
	out := commands["stamp"]()     // HAZARD
	out = formatters["upper"](out) // TRAP
	embeddings.Lock()
	cached, ok := embeddings.byText[q] // HAZARD
	embeddings.Unlock()
	if !ok {
		if err := workflow.ExecuteActivity(ctx, Embed, q).Get(ctx, &cached); err != nil {
			return "", err
		}
	}
	_ = models.byTask["plan"]     // TRAP
	order := sourceOrder(sources) // HAZARD
	for i := 0; i < len(order); i++ {
		_ = workflow.ExecuteActivity(ctx, "fetch", order[i])
		step++
	}
	for _, s := range sortedSources(sources) { // TRAP
		_ = workflow.ExecuteActivity(ctx, "fetch", s)
	}
	return out, nil
}

// Fanout is a workflow declared as a function literal.
var Fanout = func(ctx workflow.Context, shards map[string]int) error {
	names := slices.Collect(maps.Keys(shards)) // HAZARD
	for _, n := range names {                  // TRAP
		_ = workflow.ExecuteActivity(ctx, "shard", n)
	}
	return nil
}
