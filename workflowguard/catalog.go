package workflowguard

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// hazard is one sink: a function (or variable) that is unsafe on the workflow path.
type hazard struct {
	rule   string
	callee string         // display name, with the full import path
	remedy remedyID       // its text is in the rule table
	fix    fixKind        // the mechanical rewrite offered, if any
	loop   *ast.RangeStmt // for fixSortedKeys, the range statement to rewrite
}

// fixKind names a suggested fix.
type fixKind int

const (
	noFix         fixKind = iota
	fixNow                // time.Now() → workflow.Now(ctx)
	fixSince              // time.Since(t) → workflow.Now(ctx).Sub(t)
	fixSleep              // time.Sleep(d) → workflow.Sleep(ctx, d)
	fixGo                 // go f() → workflow.Go(ctx, func(ctx workflow.Context) { f() })
	fixSortedKeys         // for k, v := range m → for _, k := range slices.Sorted(maps.Keys(m)) { v := m[k]
)

// defaultProviders are the import path prefixes of model provider SDKs (ADK-W001).
var defaultProviders = []string{
	"github.com/openai/openai-go",
	"github.com/sashabaranov/go-openai",
	"github.com/anthropics/anthropic-sdk-go",
	"google.golang.org/genai",
	"github.com/tmc/langchaingo/llms",
}

// catalog classifies callees by their types.Func identity: package path, receiver type name and
// method or function name. Nothing here looks at the identifier a caller wrote.
type catalog struct {
	providers []string
}

func newCatalog(extra []string) *catalog {
	return &catalog{providers: append(slices.Clone(defaultProviders), extra...)}
}

// underPath reports whether path is prefix or a package below it (which covers /vN suffixes).
func underPath(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// receiverName returns the name of the named type a method is declared on, or "" for a function.
func receiverName(fn *types.Func) string {
	recv := fn.Signature().Recv()
	if recv == nil {
		return ""
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}

func oneOf(name string, names ...string) bool { return slices.Contains(names, name) }

func hasPrefixOneOf(name string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// lookup returns the hazard fn is, if it is one.
func (c *catalog) lookup(fn *types.Func) (hazard, bool) {
	if fn.Pkg() == nil {
		return hazard{}, false
	}
	path, recv, name := fn.Pkg().Path(), receiverName(fn), fn.Name()
	found := func(rule string, remedy remedyID) (hazard, bool) {
		return hazard{rule: rule, callee: displayName(fn, true), remedy: remedy}, true
	}
	switch path {
	case "time":
		var h hazard
		var ok bool
		if recv == "" && oneOf(name, "Now", "Since", "Until") {
			h, ok = found(RuleWallClock, remedyNow)
		}
		if recv == "" && oneOf(name, "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker") {
			h, ok = found(RuleWallClock, remedyWait)
		}
		h.fix = map[string]fixKind{"Now": fixNow, "Since": fixSince, "Sleep": fixSleep}[name]
		return h, ok
	case "os":
		if recv == "" && (oneOf(name, "Getenv", "LookupEnv", "Environ", "ExpandEnv", "Setenv", "Unsetenv", "Clearenv",
			"Hostname", "Getwd", "Chdir", "Executable", "UserHomeDir", "UserCacheDir", "UserConfigDir", "TempDir",
			"Getpid", "Getppid", "Getuid", "Getgid", "Geteuid", "Getegid", "Getgroups", "DirFS", "CopyFS") ||
			hasPrefixOneOf(name, "Open", "Create", "Read", "Write", "Stat", "Lstat", "Remove", "Mkdir", "Rename",
				"Ch", "Link", "Symlink", "Truncate")) ||
			recv == "File" && !oneOf(name, "Name", "Fd") {
			return found(RuleIO, remedyLocal)
		}
		return hazard{}, false
	case "context":
		// A deadline or timeout on a context.Context fires on the wall clock, in a goroutine.
		if recv == "" && oneOf(name, "WithTimeout", "WithDeadline", "WithTimeoutCause", "WithDeadlineCause") {
			return found(RuleWallClock, remedyDeadline)
		}
		return hazard{}, false
	case "runtime":
		if recv == "" && oneOf(name, "NumCPU", "GOMAXPROCS", "NumGoroutine") {
			return found(RuleIO, remedyLocal)
		}
		return hazard{}, false
	case "hash/maphash":
		if recv == "" && name == "MakeSeed" {
			return found(RuleRandomness, remedyRandom)
		}
		return hazard{}, false
	case "sync":
		if recv == "WaitGroup" && name == "Go" {
			return found(RuleConcurrency, remedyGo)
		}
		return hazard{}, false
	case "golang.org/x/sync/errgroup":
		// Group.Go starts a goroutine: the fan-out of a library, reported where the workflow calls it.
		if recv == "Group" && oneOf(name, "Go", "TryGo") {
			return found(RuleConcurrency, remedyGo)
		}
		return hazard{}, false
	case "golang.org/x/time/rate":
		// A limiter keeps its tokens on the wall clock: Wait sleeps on it, Allow and Reserve read it.
		if recv == "Limiter" && oneOf(name, "Wait", "WaitN") {
			return found(RuleWallClock, remedyWait)
		}
		if recv == "Limiter" && oneOf(name, "Allow", "Reserve", "Tokens") {
			return found(RuleWallClock, remedyNow)
		}
		return hazard{}, false
	case "os/user":
		if recv == "" {
			return found(RuleIO, remedyLocal)
		}
		return hazard{}, false
	case "syscall":
		if recv == "" && oneOf(name, "Getenv", "Environ", "Setenv", "Unsetenv", "Clearenv", "Getpid", "Getwd") {
			return found(RuleIO, remedyLocal)
		}
		return hazard{}, false
	case "path/filepath":
		if recv == "" && oneOf(name, "Walk", "WalkDir", "Glob", "Abs", "EvalSymlinks") {
			return found(RuleIO, remedyLocal)
		}
		return hazard{}, false
	case "io/ioutil":
		if recv == "" && !oneOf(name, "NopCloser", "ReadAll") {
			return found(RuleIO, remedyLocal)
		}
		return hazard{}, false
	case "math/rand", "math/rand/v2":
		// Top-level draws use the global, randomly seeded source. Constructors are not draws:
		// a *Rand is judged at its draws by the provenance of its source.
		if recv == "" && !strings.HasPrefix(name, "New") && name != "Seed" {
			return found(RuleRandomness, remedyRandom)
		}
		return hazard{}, false
	case "crypto/rand":
		if recv == "" {
			return found(RuleRandomness, remedyRandom)
		}
		return hazard{}, false
	case "github.com/google/uuid":
		if recv == "" && oneOf(name, "New", "NewRandom", "NewString", "NewUUID", "NewV6", "NewV7",
			"NewDCESecurity", "NewDCEPerson", "NewDCEGroup") {
			return found(RuleRandomness, remedyUUID)
		}
		return hazard{}, false
	case "net":
		if recv == "" && hasPrefixOneOf(name, "Dial", "Listen", "Lookup", "Resolve") ||
			oneOf(recv, "Dialer", "Resolver", "ListenConfig") ||
			recv != "" && hasPrefixOneOf(name, "Read", "Write", "Accept") {
			return found(RuleIO, remedyNetwork)
		}
		return hazard{}, false
	case "net/http":
		if recv == "" && oneOf(name, "Get", "Head", "Post", "PostForm", "ListenAndServe", "ListenAndServeTLS",
			"Serve", "ServeTLS") ||
			recv == "Client" && oneOf(name, "Do", "Get", "Head", "Post", "PostForm") ||
			recv == "Server" && hasPrefixOneOf(name, "ListenAndServe", "Serve", "Shutdown") ||
			oneOf(recv, "Transport", "RoundTripper") && name == "RoundTrip" {
			return found(RuleIO, remedyNetwork)
		}
		return hazard{}, false
	case "database/sql":
		if recv == "" && oneOf(name, "Open", "OpenDB") ||
			oneOf(recv, "DB", "Conn", "Tx", "Stmt") &&
				hasPrefixOneOf(name, "Query", "Exec", "Begin", "Ping", "Prepare", "Commit", "Rollback", "Conn", "Raw") {
			return found(RuleIO, remedyNetwork)
		}
		return hazard{}, false
	case "os/exec":
		if recv == "" && name == "LookPath" ||
			recv == "Cmd" && oneOf(name, "Run", "Start", "Output", "CombinedOutput", "Wait") {
			return found(RuleIO, remedyNetwork)
		}
		return hazard{}, false
	case "google.golang.org/grpc":
		if recv == "" && oneOf(name, "Dial", "DialContext", "NewClient") ||
			recv == "ClientConn" && oneOf(name, "Invoke", "NewStream") {
			return found(RuleIO, remedyNetwork)
		}
		return hazard{}, false
	}
	switch {
	case underPath(path, "github.com/gofrs/uuid"):
		if recv == "" && oneOf(name, "NewV1", "NewV4", "NewV6", "NewV7") {
			return found(RuleRandomness, remedyUUID)
		}
	case underPath(path, "github.com/cenkalti/backoff"):
		// The Retry family sleeps between attempts on the wall clock, whatever the backoff; a
		// ticker ticks on it. ExponentialBackOff.NextBackOff is judged at the call by how its
		// receiver was set up (backoffDraw).
		if recv == "" && (strings.HasPrefix(name, "Retry") || name == "NewTicker" || name == "NewTickerWithTimer") {
			return found(RuleWallClock, remedyRetryWait)
		}
	case underPath(path, "github.com/avast/retry-go"):
		if recv == "" && name == "RandomDelay" {
			return found(RuleRandomness, remedyJitter)
		}
		if recv == "" && oneOf(name, "Do", "DoWithData") {
			return found(RuleWallClock, remedyRetryWait)
		}
	case underPath(path, "github.com/sethvargo/go-retry"):
		if recv == "" && oneOf(name, "WithJitter", "WithJitterPercent") {
			return found(RuleRandomness, remedyJitter)
		}
		if recv == "" && oneOf(name, "Do", "DoValue") {
			return found(RuleWallClock, remedyRetryWait)
		}
		if recv == "" && name == "WithMaxDuration" {
			return found(RuleWallClock, remedyDeadline)
		}
	case path == "github.com/failsafe-go/failsafe-go":
		// Executions sleep between attempts on the wall clock.
		if (recv == "" || recv == "Executor") &&
			oneOf(name, "Run", "Get", "RunWithExecution", "GetWithExecution", "RunAsync", "GetAsync") {
			return found(RuleWallClock, remedyRetryWait)
		}
	}
	for _, p := range c.providers {
		if underPath(path, p) && takesContext(fn) {
			return found(RuleModelCall, remedyProvider)
		}
	}
	return hazard{}, false
}

// isFSRead reports whether fn is an io/fs function that reads the file system it is given: a
// hazard when that is the real one (os.DirFS), not when it is an embed.FS or an fstest.MapFS.
func isFSRead(fn *types.Func) bool {
	return fn.Pkg() != nil && fn.Pkg().Path() == "io/fs" && receiverName(fn) == "" &&
		oneOf(fn.Name(), "ReadFile", "ReadDir", "Stat", "Glob", "WalkDir", "Sub")
}

// lookupVar returns the hazard a package-level variable is, if it is one.
func (c *catalog) lookupVar(v *types.Var) (hazard, bool) {
	if v.Pkg() != nil && v.Pkg().Path() == "crypto/rand" && v.Name() == "Reader" && v.Parent() == v.Pkg().Scope() {
		return hazard{rule: RuleRandomness, callee: "crypto/rand.Reader", remedy: remedyRandom}, true
	}
	return hazard{}, false
}

// takesContext reports whether fn has a context.Context parameter: provider SDK calls that make
// requests take one, pure value helpers (openai.String, message builders) do not.
func takesContext(fn *types.Func) bool {
	params := fn.Signature().Params()
	for i := range params.Len() {
		if isNamed(params.At(i).Type(), "context", "Context") {
			return true
		}
	}
	return false
}

// isNamed reports whether t, through aliases, is the named type path.name.
func isNamed(t types.Type, path, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == path && n.Obj().Name() == name
}

// isRandRandDraw reports whether fn is a method of *math/rand.Rand or *math/rand/v2.Rand: a draw
// whose safety depends on how the source was seeded.
func isRandRandDraw(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Name() == "Seed" {
		return false
	}
	path := fn.Pkg().Path()
	return (path == "math/rand" || path == "math/rand/v2") && receiverName(fn) == "Rand"
}

// displayName renders fn as pkg.F, (*pkg.T).M or (pkg.T).M; with full the package is its import path.
func displayName(fn *types.Func, full bool) string {
	qual := func(p *types.Package) string {
		if full {
			return p.Path()
		}
		return p.Name()
	}
	if recv := fn.Signature().Recv(); recv != nil {
		t := recv.Type()
		star := ""
		if p, ok := t.(*types.Pointer); ok {
			star, t = "*", p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil {
			return "(" + star + qual(n.Obj().Pkg()) + "." + n.Obj().Name() + ")." + fn.Name()
		}
		return "(" + types.TypeString(t, qual) + ")." + fn.Name()
	}
	if fn.Pkg() == nil {
		return fn.Name()
	}
	return qual(fn.Pkg()) + "." + fn.Name()
}
