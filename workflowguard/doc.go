// Package workflowguard defines an analyzer that reports replay hazards on the Temporal workflow
// path: calls that would make two replays of the same history take different decisions.
//
//	go run ./workflowguard/cmd/workflowguard ./...
//
//	go install github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard@latest
//	go vet -vettool=$(which workflowguard) ./...
//
// Each finding prints as file:line:col, the rule code, a summary, the callee in parentheses and
// the Temporal-safe replacement:
//
//	w.go:18:9: ADK-W002 random draw on the workflow path (math/rand.Float64); draw from workflow.GetRandomStream(ctx, name) ...
//	w.go:21:6: ADK-W005 helper reaches a random draw (ADK-W002) on the workflow path (retry.Backoff → retry.jitter → math/rand.Float64); ...
//
// Exit status is the go/analysis one: 3 when there are findings, 1 when analysis failed (a
// package that does not type-check is reported with its errors), 0 when clean. Under go vet
// a finding makes vet exit 1.
//
// # Rules
//
//	ADK-W001  model provider call: a function or method of github.com/openai/openai-go,
//	          github.com/sashabaranov/go-openai, github.com/anthropics/anthropic-sdk-go,
//	          google.golang.org/genai or github.com/tmc/langchaingo/llms (or a -providers
//	          prefix) that takes a context.Context: the request-making calls. Value helpers
//	          such as openai.String are not calls to a model.  Remedy: an activity.
//	ADK-W002  random draw: math/rand and math/rand/v2 top-level draws (everything but the New*
//	          constructors and Seed); draws from a *rand.Rand whose source was built from the
//	          clock or another draw; crypto/rand (functions and rand.Reader); uuid generation
//	          (github.com/google/uuid New, NewString, NewRandom, NewUUID, NewV6, NewV7, DCE;
//	          github.com/gofrs/uuid NewV1/V4/V6/V7); jitter helpers of backoff libraries
//	          (cenkalti/backoff ExponentialBackOff.NextBackOff and Retry*, avast/retry-go
//	          RandomDelay/Do, sethvargo/go-retry WithJitter*/Do, failsafe-go Run/Get).
//	          Remedy: workflow.GetRandomStream, workflow.SideEffect, or jitter computed
//	          activity-side.
//	ADK-W003  wall clock: time.Now, Since, Until (remedy: workflow.Now) and time.Sleep, After,
//	          AfterFunc, Tick, NewTimer, NewTicker (remedy: workflow.Sleep, workflow.NewTimer).
//	ADK-W004  network and process I/O: net dials, listens, lookups and connection reads and
//	          writes; net/http client requests and servers; database/sql Open and DB, Conn, Tx
//	          and Stmt queries; os/exec Cmd.Run/Start/Output/CombinedOutput/Wait and LookPath;
//	          google.golang.org/grpc Dial, DialContext, NewClient, ClientConn.Invoke/NewStream.
//	          Remedy: an activity.
//	ADK-W005  a call from a workflow into a helper, at any depth and in any package, that
//	          reaches one of the above. The message gives the shortest chain. One finding per
//	          call site and rule reached.
//
// The safe forms are not reported: workflow.Now, workflow.Sleep, workflow.NewTimer, and the
// SDK's deterministic random stream, rand.New(workflow.GetRandomStream(ctx, name)) from
// math/rand/v2 (the SDK's WorkflowRandomStream is a math/rand/v2 Source and an io.Reader, so
// uuid.NewRandomFromReader(workflow.GetRandomStream(ctx, name)) is safe too). A *rand.Rand
// with a fixed seed is deterministic and not reported either.
//
// # Scope
//
// A workflow is any function, method or function literal whose first parameter's type is
// go.temporal.io/sdk/workflow.Context, recognised by type: through any chain of aliases (a
// user's type C = workflow.Context, the SDK's own workflow.Context = internal.Context =
// workflowcontext.Context), never by the spelling of the parameter. Within a workflow:
//
//   - Callees are resolved by type (typeutil.Callee and types.Func identity), so a local variable
//     named rand or an import of another package named rand is not math/rand. Generic functions
//     and methods are resolved to their origin.
//   - Function values count where they can be called: f := rand.Float64 is reported where the
//     value is taken, as are method values (r.Intn), values passed to func-typed parameters and
//     values returned. A value stored in an interface (workflow.ExecuteActivity(ctx, Activity),
//     a map[string]any registry) is not called by the workflow and is not reported.
//   - Closures that are called, deferred, or handed to func-typed parameters (workflow.Go,
//     selector callbacks) belong to the workflow; a literal that is itself a workflow
//     (an update handler, a workflow registered inline) is reported as one.
//   - Callbacks of workflow.SideEffect, SideEffectWithOptions, MutableSideEffect and
//     MutableSideEffectWithOptions are out of scope, whether literals, named functions or
//     local variables; so are activities (a context.Context first parameter). Both come back
//     in scope when a workflow calls them directly (ADK-W005).
//   - Every function of every analysed package gets an object fact listing, per rule, the
//     shortest chain to a hazard; callers in other packages read the fact instead of the body,
//     so analysis stays linear in the size of the program. The standard library and the Temporal
//     SDK export no facts: their hazards are matched at the call, which keeps log.Printf or
//     reflect internals from being reported as clock reads or map iterations.
//   - A workflow calling another workflow of the same package is not reported again at the
//     call: the callee's findings are reported where they are.
//
// Not covered: dynamic dispatch through user-defined interfaces, function values kept in struct
// fields or package variables and called elsewhere, and the provenance of a *rand.Rand that
// arrives as a parameter or field (only assignments to variables of the same package are
// followed).
//
// # Suppression
//
// A directive silences one or more rules with a reason. It has no space after the slashes, so
// gofmt keeps it and go/doc hides it:
//
//	start := time.Now() //workflowguard:ignore ADK-W003 only feeds a log line
//
//	//workflowguard:ignore ADK-W002,ADK-W003 replay-tested: values are discarded
//	jitter := backoff.Next()
//
//	// Poll reads the clock for logging only.
//	//
//	//workflowguard:ignore ADK-W003 timestamps only feed log lines
//	func Poll(ctx workflow.Context) error { ... }
//
// The syntax is //workflowguard:ignore RULE[,RULE...] REASON. A trailing directive covers its
// own line, a directive on a line of its own covers the next line, and a directive in a
// function's doc comment covers the whole function. At a helper call, ADK-W005 or the rule the
// helper reaches both match. A directive inside a helper also keeps the silenced hazard out of
// the helper's fact. A directive without a reason, without a rule, or with an unknown rule is
// itself reported ("malformed workflowguard directive") and silences nothing.
//
// # Flags
//
//	-providers=path1,path2   more import path prefixes of model provider SDKs for ADK-W001
//
// Under go vet the flag is passed the same way: go vet -vettool=$(which workflowguard)
// -providers=example.com/llm ./...
//
// # Compared with workflowcheck
//
// Temporal's go.temporal.io/sdk/contrib/tools/workflowcheck v0.6.0 (latest, built with Go 1.26)
// and workflowguard over one generated module of 50 packages: 40 workflow packages of 14 files
// (one workflow each) and 10 helper packages, on go.temporal.io/sdk v1.51.0. 480 random draws
// and clock reads sit on the workflow path; SideEffect callbacks, activities and
// rand.New(workflow.GetRandomStream(...)) files hold hazards that must not be reported.
//
//	go install go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
//	go run ./workflowguard/internal/compare -workflowcheck "$(go env GOPATH)/bin/workflowcheck"
//
//	                                 workflowguard  workflowcheck
//	direct math/rand, time.Now/Sleep      120/120        120/120
//	through helpers (chains)               80/80          80/80
//	closures (workflow.Go)                 40/40          40/40
//	clock-seeded rand.New: clock           40/40          40/40
//	clock-seeded rand.New: draw            40/40           0/40
//	math/rand/v2 top-level draw            40/40           0/40
//	aliased context (type C = ...)         40/40           0/40
//	function value (f := rand.Float64)     40/40           0/40
//	method value (nap := s.Nap)            40/40           0/40
//	total                                 480/480        280/480
//	found by workflowcheck only                 0
//	in SideEffect, activities, safe stream      0              0
//	wall time, median of 5 interleaved   3.24 s         3.49 s   (ratio 0.93)
//
// The figures were taken on a shared two-core machine; both tools spend most of their time
// loading and type-checking the dependency graph from source, so the ratio, measured in one
// run, is the figure to read. The harness's own test (go test ./workflowguard/internal/compare)
// checks workflowguard's findings on a small tree over the SDK stub without network access.
package workflowguard
