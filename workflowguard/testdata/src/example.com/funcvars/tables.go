package funcvars

import (
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Tables of handlers: a function stored as an element of a package-level map or slice of funcs is
// followed to where an element is called, like one stored in a function variable.
var formatters = map[string]func(string) string{ // want formatters:`^reaches\(ADK-W003 funcvars\.formatters → time\.Now\)$`
	"stamp": func(s string) string { return s + " " + time.Now().Format(time.RFC3339) },
	"upper": strings.ToUpper,
}

var steps = []func() int64{ // want steps:`^reaches\(ADK-W003 funcvars\.steps → time\.Now\)$`
	func() int64 { return 1 },
	func() int64 { return time.Now().Unix() },
}

var pure = map[string]func(int) string{"itoa": strconv.Itoa, "hex": func(n int) string { return strconv.FormatInt(int64(n), 16) }}

var late = map[string]func() time.Time{} // want late:`^reaches\(ADK-W003 funcvars\.late → time\.Now\)$`

func init() { late["now"] = time.Now } // want init:`reaches\(ADK-W007`

func TableWorkflow(ctx workflow.Context, name string) string { // want TableWorkflow:`reaches`
	out := formatters[name]("report") // want `^ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(funcvars.formatters → time.Now\)`
	f, ok := formatters["stamp"]      // want `\(funcvars.formatters → time.Now, taken as a function value\)`
	if ok {
		out = f(out)
	}
	_ = steps[1]()               // want `\(funcvars.steps → time.Now\)`
	_ = late["now"]()            // want `\(funcvars.late → time.Now\)`
	for _, step := range steps { // want `\(funcvars.steps → time.Now, taken as a function value\)`
		_ = step()
	}

	// Safe: a table of pure functions, a table element read but not called, the table's length.
	out += pure["itoa"](3) + pure["hex"](10)
	_, known := formatters[name]
	for name := range formatters {
		out += name
	}
	return out + strconv.Itoa(len(steps)) + strconv.FormatBool(known)
}
