// Package funcvars calls hazards through package-level function variables and struct fields.
package funcvars

import (
	"math/rand"
	"os"
	"time"

	"example.com/d"
	"go.temporal.io/sdk/workflow"
)

var now = time.Now // want now:`^reaches\(ADK-W003 funcvars\.now → time\.Now\)$`

var pick = rand.Float64 // want pick:`^reaches\(ADK-W002 funcvars\.pick → math/rand\.Float64\)$`

var stamp = func() time.Time { return time.Now() } // want stamp:`^reaches\(ADK-W003 funcvars\.stamp → time\.Now\)$`

var safeCount = func() int { return 3 } // pure: calls stay quiet

type deps struct {
	clock func() time.Time // want clock:`^reaches\(ADK-W003 \(funcvars\.deps\)\.clock → time\.Now\)$`
	draw  func() float64   // want draw:`^reaches\(ADK-W002 \(funcvars\.deps\)\.draw → math/rand\.Float64\)$`
	pure  func(int) int
}

var defaultDeps = deps{clock: time.Now, draw: rand.Float64, pure: double}

func double(n int) int { return 2 * n }

type svc struct{ fetch func(string) ([]byte, error) } // want fetch:`^reaches\(ADK-W004 \(funcvars\.svc\)\.fetch → os\.ReadFile\)$`

func newSvc() *svc {
	s := &svc{}
	s.fetch = os.ReadFile
	return s
}

func FuncVarWorkflow(ctx workflow.Context) { // want FuncVarWorkflow:`^reaches\(ADK-W002 funcvars\.FuncVarWorkflow → funcvars\.pick → math/rand\.Float64; ADK-W003 funcvars\.FuncVarWorkflow → funcvars\.now → time\.Now; ADK-W004 funcvars\.FuncVarWorkflow → \(funcvars\.svc\)\.fetch → os\.ReadFile\)$`
	_ = now()                  // want `ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(funcvars.now → time.Now\)`
	_ = pick()                 // want `\(funcvars.pick → math/rand.Float64\)`
	_ = stamp()                // want `\(funcvars.stamp → time.Now\)`
	_ = safeCount()            // pure
	_ = defaultDeps.clock()    // want `\(\(funcvars.deps\).clock → time.Now\)`
	_ = defaultDeps.draw()     // want `\(\(funcvars.deps\).draw → math/rand.Float64\)`
	_ = defaultDeps.pure(2)    // pure
	_, _ = newSvc().fetch("x") // want `ADK-W005 helper reaches network, process, environment or file I/O \(ADK-W004\) on the workflow path \(\(funcvars.svc\).fetch → os.ReadFile\)`
	_ = d.Now()                // want `\(d.Now → time.Now\)`
	_ = d.NewService().Stamp() // want `\(\(\*d.Service\).Stamp → \(d.Service\).clock → time.Now\)`
}
