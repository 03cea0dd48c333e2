// Package workflowguard defines an analyzer that reports replay hazards on the Temporal workflow
// path: calls that would make two replays of the same history take different decisions.
//
// In a module of your own, add it as a tool of the module once, then run it with go tool,
// alone or inside go vet:
//
//	go get -tool github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard
//	go tool workflowguard ./...
//	go tool workflowguard -fix ./...   # apply the suggested fixes
//	go vet -vettool=$(go tool -n workflowguard) ./...
//
// In this repository, go run ./workflowguard/cmd/workflowguard ./... does the same.
//
// Each finding prints as file:line:col, the rule code, a summary, the callee in parentheses and
// the Temporal-safe replacement:
//
//	w.go:18:9: ADK-W002 random draw on the workflow path (math/rand.Float64); draw from workflow.GetRandomStream(ctx, name) ...
//	w.go:21:6: ADK-W005 helper reaches a random draw (ADK-W002) on the workflow path (retry.Backoff → retry.jitter → math/rand.Float64); ...
//
// Exit status is the go/analysis one: 3 when there are findings, 1 when analysis failed (a
// package that does not type-check is reported with its errors), 0 when clean. Under go vet
// a finding makes vet exit 1. With -fix the command applies the fixes, then prints the findings
// that remain and exits 3 while any do.
//
// # Rules
//
// One table in rules.go holds every rule's code, summary, remedy and the text below; the
// analyzer prints from it and a test checks this section and README.md against it.
//
//	ADK-W001  model provider call: a function or method of github.com/openai/openai-go,
//	          github.com/sashabaranov/go-openai, github.com/anthropics/anthropic-sdk-go,
//	          google.golang.org/genai or github.com/tmc/langchaingo/llms (or a -providers
//	          prefix) that takes a context.Context: the request-making calls. Value helpers
//	          such as openai.String are not calls to a model.
//	          Remedy: an activity.
//	ADK-W002  random draw: math/rand and math/rand/v2 top-level draws (everything but the New*
//	          constructors and Seed); draws from a *rand.Rand whose source was built from the
//	          clock or another draw; crypto/rand (functions and rand.Reader); hash/maphash.MakeSeed;
//	          uuid generation (github.com/google/uuid New, NewString, NewRandom, NewUUID, NewV6,
//	          NewV7, DCE; github.com/gofrs/uuid NewV1/V4/V6/V7); jitter of backoff libraries
//	          (cenkalti/backoff ExponentialBackOff.NextBackOff unless its RandomizationFactor is
//	          set to 0 where it is built, also through a BackOff or promoted from a struct that
//	          embeds one, and when kept in a field or made by a constructor of the package, whose
//	          setup the loop cannot see; avast/retry-go RandomDelay, sethvargo/go-retry WithJitter*
//	          and the Next
//	          of a Backoff it made); in a query handler, which is read-only, workflow.GetRandomStream
//	          and a draw from a stream the workflow took (its Uint64 or Read, a *rand.Rand over it,
//	          a function handed either).
//	          Remedy: workflow.GetRandomStream, workflow.SideEffect, or jitter computed activity-side.
//	ADK-W003  wall clock: time.Now, Since, Until and time.Sleep, After, AfterFunc, Tick,
//	          NewTimer, NewTicker (Now, Since and Sleep come with a suggested fix); deadlines:
//	          context.WithTimeout, WithDeadline and their Cause forms, sethvargo/go-retry
//	          WithMaxDuration and the Next of a Backoff it made, whose stop reads the clock at
//	          each call, cenkalti/backoff v4 NextBackOff unless MaxElapsedTime is 0 (also
//	          through a BackOff or promoted from an embedding struct), both reported at the Next
//	          call also when the backoff is kept in a field or made by a constructor of the
//	          package; golang.org/x/time/rate
//	          Limiter Wait, WaitN, Allow, Reserve, Tokens; the retry loops of backoff libraries,
//	          which sleep between attempts with or without jitter (cenkalti/backoff Retry* and
//	          NewTicker, avast/retry-go Do, sethvargo/go-retry Do, failsafe-go Run/Get).
//	          Remedy: workflow.Now(ctx) for reads, workflow.Sleep(ctx, d) or workflow.NewTimer for waits and deadlines.
//	ADK-W004  I/O: net dials, listens, lookups and connection reads and writes; net/http
//	          client requests and servers; database/sql Open and DB, Conn, Tx and Stmt
//	          queries; os/exec Cmd.Run/Start/Output/CombinedOutput/Wait and LookPath;
//	          google.golang.org/grpc Dial, DialContext, NewClient, ClientConn.Invoke/NewStream;
//	          the process environment (os.Getenv, LookupEnv, Environ, ExpandEnv, Hostname,
//	          Getwd, Executable, the user directories, os/user, syscall.Getenv); the file
//	          system (os.ReadFile, WriteFile, Open, Create, Stat, ReadDir and the other os
//	          file functions, *os.File reads and writes, path/filepath Walk, WalkDir, Glob,
//	          Abs, EvalSymlinks, io/ioutil), and io/fs reads (fs.ReadFile, ReadDir, Stat,
//	          Glob, WalkDir, Sub) of an os.DirFS; an embed.FS or fstest.MapFS is not I/O;
//	          the machine (runtime.NumCPU, GOMAXPROCS, NumGoroutine).
//	          Remedy: an activity; for a value read once, workflow.SideEffect or MutableSideEffect.
//	ADK-W005  a call from a workflow into a helper, at any depth and in any package, that
//	          reaches one of the other rules: through function calls, package-level function
//	          variables, maps and slices of functions (tables of handlers) and struct fields of
//	          function type, and interface methods (each implementation in the packages the
//	          caller sees). The message gives the shortest chain. One finding per call site and
//	          rule reached.
//	          Remedy: the remedy of the rule reached.
//	ADK-W006  native concurrency: a go statement (suggested fix: workflow.Go), sync.WaitGroup.Go
//	          and golang.org/x/sync/errgroup Group.Go and TryGo, a send or receive on a Go
//	          channel or a range over one (workflow.Channel), a select statement
//	          (workflow.Selector); and a range over a map, or over maps.Keys, Values or All,
//	          whose body issues a command (an SDK call that schedules one, or a helper that
//	          takes the workflow.Context; suggested fix: range over slices.Sorted(maps.Keys(m))),
//	          also through iterators (an iter.Seq or iter.Seq2 function over a map) and slices
//	          filled in map order and never sorted (slices.Collect or AppendSeq of maps.Keys, a
//	          slice appended to in a range over a map, also when a function of the package
//	          returns it, it is kept in a field or appended with s...), ranged or indexed by a
//	          counting loop, and reported where the slice is filled; and
//	          the first entry of a map taken with a break. A goroutine started by a helper is
//	          followed into any module and reported where the workflow calls the helper, with the
//	          chain; channels and map order only within one module.
//	          Remedy: workflow.Go, workflow.Channel, workflow.Selector, or iterate sorted keys.
//	ADK-W007  process-global state, which lives as long as the worker and is shared by every
//	          run on it: a package-level variable written on the workflow path (assigned, an
//	          element or field set, delete, clear, ++, an atomic or sync.Map store) and read in
//	          workflow code or by the function that writes it (only written, as a metric or a
//	          test's sink, it decides nothing); an atomic or sync.Map read of one; a read of a
//	          package-level map, or of a map field of a package-level struct, used as a cache,
//	          whose entries are set, deleted or cleared in
//	          workflow code, in a function that takes a context (an activity) or in what those
//	          call in the package (a table filled in its declaration, at init or by a function
//	          called only at start-up is not one); sync.Once.Do on a package-level Once, and a
//	          package-level function made by sync.OnceFunc, OnceValue or OnceValues; a draw from
//	          a package-level *rand.Rand (shared by all runs even with a fixed seed); a
//	          sync.Mutex or RWMutex locked across a blocking workflow call (Future.Get,
//	          workflow.Sleep, Await, Receive, Send, Select). Likely rather than proved, and off
//	          with -likely=false: a read of a package-level variable set from the clock, a draw
//	          or the environment. Followed through helpers within one module.
//	          Remedy: workflow state (a local, or a struct the workflow owns), workflow.MutableSideEffect, or workflow.NewMutex.
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
//     and methods are resolved to their origin; a generic function's call of a method of its own
//     type parameter (b.Next() with b of type B) is resolved at each instantiation, to the method of
//     the type argument, so Retry[Constant] is not reported for what Retry[Jittered] reaches. A type
//     argument that is itself a type parameter or an interface is resolved to every implementation.
//   - Function values count where they can be called: f := rand.Float64 is reported where the
//     value is taken, as are method values (r.Intn, also of a *rand.Rand embedded in a struct),
//     values passed to func-typed parameters and values returned. A value stored in an interface
//     (workflow.ExecuteActivity(ctx, Activity), a map[string]any registry) is not called by the
//     workflow and is not reported, except reflect.ValueOf(f) whose Value is called, directly or
//     through a variable of the same function (Call, CallSlice): also where f is a parameter of
//     type any of a function of the package that calls it so (a tool invoker, reported at the
//     argument), or an element of a package-level map or slice of any whose elements are so
//     called (reflect.ValueOf(tools[name]).Call), or a value stored in a struct field of
//     interface type of the package whose value is so called (Tool{Fn: f} in a registry,
//     reflect.ValueOf(t.Fn).Call).
//   - Closures that are called, deferred, or handed to func-typed parameters (workflow.Go,
//     selector callbacks) belong to the workflow; a literal that is itself a workflow
//     (an update handler, a workflow registered inline) is reported as one.
//   - Callbacks of workflow.SideEffect, SideEffectWithOptions, MutableSideEffect and
//     MutableSideEffectWithOptions are out of scope, whether literals, named functions or
//     local variables; so are activities (a context.Context first parameter). Both come back
//     in scope when a workflow calls them directly (ADK-W005).
//   - A function value stored once in a package-level variable or a struct field of function
//     type (var now = time.Now; Service{clock: time.Now}; s.fetch = os.ReadFile, a literal too)
//     is followed to where the variable or field is called: the call reports the chain
//     (pkg.now → time.Now). Every store in the declaring package counts. So is a function stored
//     in a package-level map, slice or array of functions, in its initialiser, by
//     table[k] = f, or by a function of the package that stores its parameter so (a closure
//     handed to Register(name, f), which sets handlers[name] = f): an element called
//     (table[k](), f := table[k] then f(), a range whose value is called) reports the chain
//     through the table (pkg.handlers → time.Now).
//   - A call through an interface method is resolved, by class-hierarchy analysis, to the
//     implementations among the named types of the calling package and everything it imports
//     (the standard library and the SDK left out), and reports the chain through the method
//     ((pkg.Clock).Now → (pkg.systemClock).Now → time.Now). Interfaces of the standard library
//     (io.Writer) and of the SDK (workflow.Future) are not resolved.
//   - An implementation wired in from elsewhere in the program (an *http.Client behind a
//     one-method Doer, a vector index set up only in main) is reported in the package that
//     declares it, when that package imports the workflow's: a workflow's package exports the
//     interface methods its workflows call as a package fact, and a type of an importing package
//     that implements the interface and whose method reaches a hazard is reported at the method's
//     declaration, with the workflow and the call site in the chain ((lib.Doer).Do, called by
//     workflow lib.Run at run.go:24:9 → (*main.httpDoer).Do → (*net/http.Client).Get). The
//     command, go vet and golangci-lint each see the importing package with its dependencies'
//     facts, so they report it alike. A type of a third package that does not import the
//     workflow's (a pgvector index of a package of its own) is reported where the importing
//     package hands a value of it to a place of the interface's type: a field of the workflow's
//     struct (Deps{Index: pg.NewIndex(db)} in main), an assignment, an argument or a variable's
//     initialiser, with the same chain. When the workflow reads the interface from a field, only
//     that field of that struct counts, so the same index given to an activities struct is not
//     reported; a value handed to a function of the workflow's package that stores the parameter
//     into that field (a constructor New(client, index), a setter, a functional option
//     WithIndex(ix)) counts as handed to the field. A value of the standard library's own type
//     handed over as it is (http.DefaultClient behind an interface with Do(*http.Request)) is
//     judged by the rules above at the method the workflow calls ((*net/http.Client).Do).
//   - A go statement a helper of any module reaches is reported where the workflow calls the
//     helper (a worker pool's fan-out); a library's channels, selects, map order and
//     package-level state are its own business and are followed only within one module.
//   - Every function of every analysed package gets an object fact listing, per rule, the
//     shortest chain to a hazard; callers in other packages read the fact instead of the body,
//     so analysis stays linear in the size of the program. The standard library and the Temporal
//     SDK export no facts: their hazards are matched at the call, which keeps log.Printf or
//     reflect internals from being reported as clock reads or map iterations.
//   - A workflow calling another workflow of the same package is not reported again at the
//     call: the callee's findings are reported where they are.
//
// Not covered: a value that main wires in through a variable or result of another interface
// type (the wiring site sees only the interface), or through a setter of a package other than
// the workflow's; interface calls made by helpers rather than by the workflow itself; a method
// call on a package-level value that changes it (registry.Add(x), a cache type's Put and Get);
// stores into a field or package variable from another package; function values passed through
// local variables of another function; a tool invoker, reflected table or registration
// function of another package; a slice in map order returned by a helper of another package; a
// query handler given as a named function or method rather than a literal; and the provenance
// of a *rand.Rand or an fs.FS that arrives as a parameter or field (only assignments to
// variables of the same package are followed; a backoff's is followed also through the
// package's fields and the results of its functions).
//
// # Suggested fixes
//
// Where the workflow's context parameter and the workflow package are in scope under their
// names, these findings carry a fix that gopls offers and that -fix applies:
//
//	time.Now()          → workflow.Now(ctx)
//	time.Since(t)       → workflow.Now(ctx).Sub(t)
//	time.Sleep(d)       → workflow.Sleep(ctx, d)
//	go f(x)             → workflow.Go(ctx, func(ctx workflow.Context) { f(x) })
//	go func() { ... }() → workflow.Go(ctx, func(ctx workflow.Context) { ... })
//	for k, v := range m {          → for _, k := range slices.Sorted(maps.Keys(m)) { v := m[k]
//	for k := range maps.Keys(m) {  → for _, k := range slices.Sorted(maps.Keys(m)) {
//
// A file that does not import go.temporal.io/sdk/workflow gets no fix of the first five; the
// map fix imports maps and slices when the file lacks them, and is offered when the key is of
// an ordered type, declared by the loop under a name, and the map is a variable or a field. A
// context.WithTimeout or WithDeadline gets no fix: its workflow replacement (workflow.WithCancel
// and a timer that cancels) is a workflow.Context, which the code that took a context.Context
// cannot use unchanged. After the fixes, an
// import of time that is no longer used is left for goimports to remove, and the arguments of
// a rewritten go statement are evaluated when the coroutine runs rather than at the statement.
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
//	-likely=false            leave out the findings that are likely rather than proved
//
// A likely finding says so in its text ("likely: pkg.startedAt, set from time.Now"): today the
// read of a package-level variable set from the clock, a draw or the environment (ADK-W007),
// which holds another value in each worker process but may be meant as such. Under go vet the
// flags are passed the same way: go vet -vettool=$(go tool -n workflowguard)
// -providers=example.com/llm -likely=false ./...
//
// # Cost
//
// Because the analyzer carries facts across packages, a go/analysis driver loads every package of
// the build from source. The command's own driver (cmd/workflowguard/driver.go, used for a run
// over package patterns) leaves the function bodies of the standard library, the Temporal SDK,
// gRPC and protobuf out of parsing and type-checking: the analyzer trusts those packages and
// matches their hazards at the call, so nothing it reports changes, and those bodies were most of
// the memory and time. -fix, the other singlechecker flags and go vet -vettool load everything.
//
// # Compared with workflowcheck
//
// GUARD.md at the repository root sets workflowguard beside Temporal's
// go.temporal.io/sdk/contrib/tools/workflowcheck v0.6.0 on a hand-written corpus
// (workflowguard/internal/compare/testdata/corpus: agent workflows, their helpers, a vector
// store and the worker that wires them, every line marked HAZARD or TRAP) and a generated
// tree: recall, false positives, median wall time and peak RSS, all written by the harness
// from what it measured:
//
//	go install go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
//	go run ./workflowguard/internal/compare -workflowcheck "$(go env GOPATH)/bin/workflowcheck" -out GUARD.md
//
// The harness's own tests (go test ./workflowguard/internal/compare) check, without network
// access, that workflowguard finds every HAZARD line of the corpus and reports no other line.
package workflowguard
