package workflowguard

import "strings"

// Rule codes. Each finding starts with one of them.
const (
	// RuleModelCall is a call into a model provider SDK on the workflow path.
	RuleModelCall = "ADK-W001"
	// RuleRandomness is a random draw on the workflow path.
	RuleRandomness = "ADK-W002"
	// RuleWallClock is a wall-clock read or wait on the workflow path.
	RuleWallClock = "ADK-W003"
	// RuleIO is network, process, environment or file-system I/O on the workflow path.
	RuleIO = "ADK-W004"
	// RuleReach is a call from a workflow into a helper that reaches one of the other rules.
	RuleReach = "ADK-W005"
	// RuleConcurrency is native Go concurrency, or map iteration order that decides commands, on
	// the workflow path.
	RuleConcurrency = "ADK-W006"
	// RuleGlobalState is process-global state read or written on the workflow path: shared by every
	// run on the worker and lost on another one.
	RuleGlobalState = "ADK-W007"
)

// rule is one row of the rule table, the one place a rule's text lives. A finding prints the
// code and Summary, then the entry of Remedies for the form of hazard matched; an ADK-W005
// finding names the rule it reaches by Noun and prints that rule's entry. Directives accept
// Code; doc.go and README.md carry Doc and Remedy. TestFindingsPrintTheTable and
// TestRuleTableInDocs fail when the findings or the documentation drift from this table.
type rule struct {
	Code     string
	Summary  string              // printed after the code
	Noun     string              // names the hazard in an ADK-W005 message
	Remedy   string              // the Temporal-safe replacement, in a sentence, for the documentation
	Remedies map[remedyID]string // what a finding prints after the callee, by the form of hazard
	Doc      []string            // what the rule matches, one documentation line each
}

// remedyID names one form of hazard's remedy: a hazard carries it, and the rule table holds its
// text under the row of its rule.
type remedyID int

// The forms of remedy, each the key of one entry of one row's Remedies.
const (
	noRemedy        remedyID = iota
	remedyProvider           // ADK-W001: a model call
	remedyRandom             // ADK-W002: a draw
	remedyUUID               // ADK-W002: a generated ID
	remedyJitter             // ADK-W002: a backoff library's jittered wait
	remedyNow                // ADK-W003: a clock read
	remedyWait               // ADK-W003: a clock wait
	remedyDeadline           // ADK-W003: a deadline or timeout on the wall clock
	remedyRetryWait          // ADK-W003: a retry helper sleeping between attempts
	remedyNetwork            // ADK-W004: network, database or process I/O
	remedyLocal              // ADK-W004: the environment and the file system
	remedyGo                 // ADK-W006: a go statement
	remedyChan               // ADK-W006: a Go channel
	remedySelect             // ADK-W006: a select statement
	remedyMapOrder           // ADK-W006: a map iteration that decides commands
	remedyQueryDraw          // ADK-W002: a draw in a query handler
	remedyGlobal             // ADK-W007: a package-level variable written
	remedyOnce               // ADK-W007: sync.Once
	remedyMutex              // ADK-W007: a sync mutex held across a blocking workflow call
	remedyInitValue          // ADK-W007 (likely): a package-level value set from the clock, a draw or the environment
	numRemedies
)

// toActivity is the remedy of a call that belongs in an activity (ADK-W001, and ADK-W004's
// network and process I/O).
const toActivity = "move the call into an activity (workflow.ExecuteActivity)"

// rules is the one table of rules. A new rule is one row here plus its matcher.
var rules = []rule{
	{
		Code:     RuleModelCall,
		Summary:  "model provider call on the workflow path",
		Noun:     "a model provider call",
		Remedy:   "an activity.",
		Remedies: map[remedyID]string{remedyProvider: toActivity},
		Doc: []string{
			"model provider call: a function or method of github.com/openai/openai-go,",
			"github.com/sashabaranov/go-openai, github.com/anthropics/anthropic-sdk-go,",
			"google.golang.org/genai or github.com/tmc/langchaingo/llms (or a -providers",
			"prefix) that takes a context.Context: the request-making calls. Value helpers",
			"such as openai.String are not calls to a model.",
		},
	},
	{
		Code:    RuleRandomness,
		Summary: "random draw on the workflow path",
		Noun:    "a random draw",
		Remedy:  "workflow.GetRandomStream, workflow.SideEffect, or jitter computed activity-side.",
		Remedies: map[remedyID]string{
			remedyRandom: "draw from workflow.GetRandomStream(ctx, name) (rand.New(stream) in math/rand/v2), " +
				"record the value with workflow.SideEffect, or compute jitter activity-side",
			remedyUUID: "generate the ID with uuid.NewRandomFromReader(workflow.GetRandomStream(ctx, name)), " +
				"in workflow.SideEffect, or in an activity",
			remedyJitter: "let the activity RetryPolicy back off, wait with workflow.Sleep/workflow.NewTimer, " +
				"or compute jitter activity-side",
			remedyQueryDraw: "a query handler is read-only and must not draw: draw in the workflow and keep the value in workflow state",
		},
		Doc: []string{
			"random draw: math/rand and math/rand/v2 top-level draws (everything but the New*",
			"constructors and Seed); draws from a *rand.Rand whose source was built from the",
			"clock or another draw; crypto/rand (functions and rand.Reader); hash/maphash.MakeSeed;",
			"uuid generation (github.com/google/uuid New, NewString, NewRandom, NewUUID, NewV6,",
			"NewV7, DCE; github.com/gofrs/uuid NewV1/V4/V6/V7); jitter of backoff libraries",
			"(cenkalti/backoff ExponentialBackOff.NextBackOff unless its RandomizationFactor is",
			"set to 0 where it is built, also through a BackOff or promoted from a struct that",
			"embeds one, and when kept in a field or made by a constructor of the package, whose",
			"setup the loop cannot see; avast/retry-go RandomDelay, sethvargo/go-retry WithJitter*",
			"and the Next",
			"of a Backoff it made); in a query handler, which is read-only, workflow.GetRandomStream",
			"and a draw from a stream the workflow took (its Uint64 or Read, a *rand.Rand over it,",
			"a function handed either).",
		},
	},
	{
		Code:    RuleWallClock,
		Summary: "wall clock on the workflow path",
		Noun:    "the wall clock",
		Remedy:  "workflow.Now(ctx) for reads, workflow.Sleep(ctx, d) or workflow.NewTimer for waits and deadlines.",
		Remedies: map[remedyID]string{
			remedyNow:  "use workflow.Now(ctx)",
			remedyWait: "use workflow.Sleep(ctx, d) or workflow.NewTimer(ctx, d)",
			remedyDeadline: "take the deadline from workflow time: workflow.WithCancel(ctx) and cancel when " +
				"workflow.NewTimer(ctx, d) fires, or set the activity's StartToCloseTimeout",
			remedyRetryWait: "let the activity RetryPolicy retry, or wait between attempts with workflow.Sleep(ctx, d)",
		},
		Doc: []string{
			"wall clock: time.Now, Since, Until and time.Sleep, After, AfterFunc, Tick,",
			"NewTimer, NewTicker (Now, Since and Sleep come with a suggested fix); deadlines:",
			"context.WithTimeout, WithDeadline and their Cause forms, sethvargo/go-retry",
			"WithMaxDuration and the Next of a Backoff it made, whose stop reads the clock at",
			"each call, cenkalti/backoff v4 NextBackOff unless MaxElapsedTime is 0 (also",
			"through a BackOff or promoted from an embedding struct), both reported at the Next",
			"call also when the backoff is kept in a field or made by a constructor of the",
			"package; golang.org/x/time/rate",
			"Limiter Wait, WaitN, Allow, Reserve, Tokens; the retry loops of backoff libraries,",
			"which sleep between attempts with or without jitter (cenkalti/backoff Retry* and",
			"NewTicker, avast/retry-go Do, sethvargo/go-retry Do, failsafe-go Run/Get).",
		},
	},
	{
		Code:    RuleIO,
		Summary: "network, process, environment or file I/O on the workflow path",
		Noun:    "network, process, environment or file I/O",
		Remedy:  "an activity; for a value read once, workflow.SideEffect or MutableSideEffect.",
		Remedies: map[remedyID]string{
			remedyNetwork: toActivity,
			remedyLocal:   "read it in an activity, or record it once with workflow.SideEffect or MutableSideEffect",
		},
		Doc: []string{
			"I/O: net dials, listens, lookups and connection reads and writes; net/http",
			"client requests and servers; database/sql Open and DB, Conn, Tx and Stmt",
			"queries; os/exec Cmd.Run/Start/Output/CombinedOutput/Wait and LookPath;",
			"google.golang.org/grpc Dial, DialContext, NewClient, ClientConn.Invoke/NewStream;",
			"the process environment (os.Getenv, LookupEnv, Environ, ExpandEnv, Hostname,",
			"Getwd, Executable, the user directories, os/user, syscall.Getenv); the file",
			"system (os.ReadFile, WriteFile, Open, Create, Stat, ReadDir and the other os",
			"file functions, *os.File reads and writes, path/filepath Walk, WalkDir, Glob,",
			"Abs, EvalSymlinks, io/ioutil), and io/fs reads (fs.ReadFile, ReadDir, Stat,",
			"Glob, WalkDir, Sub) of an os.DirFS; an embed.FS or fstest.MapFS is not I/O;",
			"the machine (runtime.NumCPU, GOMAXPROCS, NumGoroutine).",
		},
	},
	{
		Code:    RuleReach,
		Summary: "helper call reaches a replay hazard",
		Noun:    "a replay hazard",
		Remedy:  "the remedy of the rule reached.",
		Doc: []string{
			"a call from a workflow into a helper, at any depth and in any package, that",
			"reaches one of the other rules: through function calls, package-level function",
			"variables, maps and slices of functions (tables of handlers) and struct fields of",
			"function type, and interface methods (each implementation in the packages the",
			"caller sees). The message gives the shortest chain. One finding per call site and",
			"rule reached.",
		},
	},
	{
		Code:    RuleConcurrency,
		Summary: "native concurrency or map order on the workflow path",
		Noun:    "native concurrency or map order",
		Remedy:  "workflow.Go, workflow.Channel, workflow.Selector, or iterate sorted keys.",
		Remedies: map[remedyID]string{
			remedyGo:       "start it with workflow.Go(ctx, func(ctx workflow.Context) { ... })",
			remedyChan:     "use workflow.NewChannel(ctx) or NewBufferedChannel and its Send and Receive",
			remedySelect:   "use workflow.NewSelector(ctx) with AddReceive and AddFuture",
			remedyMapOrder: "iterate slices.Sorted(maps.Keys(m)) so that the commands come in the same order on replay",
		},
		Doc: []string{
			"native concurrency: a go statement (suggested fix: workflow.Go), sync.WaitGroup.Go",
			"and golang.org/x/sync/errgroup Group.Go and TryGo, a send or receive on a Go",
			"channel or a range over one (workflow.Channel), a select statement",
			"(workflow.Selector); and a range over a map, or over maps.Keys, Values or All,",
			"whose body issues a command (an SDK call that schedules one, or a helper that",
			"takes the workflow.Context; suggested fix: range over slices.Sorted(maps.Keys(m))),",
			"also through iterators (an iter.Seq or iter.Seq2 function over a map) and slices",
			"filled in map order and never sorted (slices.Collect or AppendSeq of maps.Keys, a",
			"slice appended to in a range over a map, also when a function of the package",
			"returns it, it is kept in a field or appended with s...), ranged or indexed by a",
			"counting loop, and reported where the slice is filled; and",
			"the first entry of a map taken with a break. A goroutine started by a helper is",
			"followed into any module and reported where the workflow calls the helper, with the",
			"chain; channels and map order only within one module.",
		},
	},
	{
		Code:    RuleGlobalState,
		Summary: "process-global state on the workflow path",
		Noun:    "process-global state",
		Remedy:  "workflow state (a local, or a struct the workflow owns), workflow.MutableSideEffect, or workflow.NewMutex.",
		Remedies: map[remedyID]string{
			remedyGlobal: "keep the state in the workflow (a local, or a struct the workflow owns), " +
				"or read a shared value once with workflow.MutableSideEffect",
			remedyOnce:  "do the work once per run in workflow state, or record its result with workflow.SideEffect",
			remedyMutex: "use workflow.NewMutex(ctx): a sync mutex held across a blocking workflow call blocks the coroutine scheduler",
			remedyInitValue: "each worker process holds its own value: pass it in the workflow's input or record it " +
				"with workflow.SideEffect (-likely=false turns likely findings off)",
		},
		Doc: []string{
			"process-global state, which lives as long as the worker and is shared by every",
			"run on it: a package-level variable written on the workflow path (assigned, an",
			"element or field set, delete, clear, ++, an atomic or sync.Map store) and read in",
			"workflow code or by the function that writes it (only written, as a metric or a",
			"test's sink, it decides nothing); an atomic or sync.Map read of one; a read of a",
			"package-level map, or of a map field of a package-level struct, used as a cache,",
			"whose entries are set, deleted or cleared in",
			"workflow code, in a function that takes a context (an activity) or in what those",
			"call in the package (a table filled in its declaration, at init or by a function",
			"called only at start-up is not one); sync.Once.Do on a package-level Once, and a",
			"package-level function made by sync.OnceFunc, OnceValue or OnceValues; a draw from",
			"a package-level *rand.Rand (shared by all runs even with a fixed seed); a",
			"sync.Mutex or RWMutex locked across a blocking workflow call (Future.Get,",
			"workflow.Sleep, Await, Receive, Send, Select). Likely rather than proved, and off",
			"with -likely=false: a read of a package-level variable set from the clock, a draw",
			"or the environment. Followed through helpers within one module.",
		},
	},
}

// ruleFor returns the row of code.
func ruleFor(code string) (rule, bool) {
	for _, r := range rules {
		if r.Code == code {
			return r, true
		}
	}
	return rule{}, false
}

// ruleSummary returns the summary of code.
func ruleSummary(code string) string {
	r, _ := ruleFor(code)
	return r.Summary
}

// ruleNoun returns the noun of code.
func ruleNoun(code string) string {
	r, _ := ruleFor(code)
	return r.Noun
}

// remedyText returns what a finding prints as the remedy of id, from the row that holds it.
func remedyText(id remedyID) string {
	for _, r := range rules {
		if text, ok := r.Remedies[id]; ok {
			return text
		}
	}
	return ""
}

// docRules renders the table as the # Rules block of doc.go (without the comment markers).
func docRules() string {
	var b strings.Builder
	const indent = "          "
	for _, r := range rules {
		for i, line := range r.Doc {
			if i == 0 {
				b.WriteString("\t" + r.Code + "  " + line + "\n")
			} else {
				b.WriteString("\t" + indent + line + "\n")
			}
		}
		b.WriteString("\t" + indent + "Remedy: " + r.Remedy + "\n")
	}
	return b.String()
}

// readmeRules renders the table as README.md's rule table.
func readmeRules() string {
	var b strings.Builder
	b.WriteString("| Rule | Reports | Remedy |\n|---|---|---|\n")
	for _, r := range rules {
		b.WriteString("| " + r.Code + " | " + r.Summary + " | " + r.Remedy + " |\n")
	}
	return b.String()
}
