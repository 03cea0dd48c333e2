// Package iface calls hazards through interface methods. // want package:`interface calls\(\(\*iface.Agent\).Run calls \(example.com/iface.Clock\).Now; .*\(example.com/d.Store\).Load; .*\(example.com/iface.Pure\).Double\)`
package iface

import (
	"io"
	"time"

	"example.com/d"
	"go.temporal.io/sdk/workflow"
)

// Clock has one implementation in the program, and it reads the wall clock.
type Clock interface{ Now() time.Time }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() } // want Now:`^reaches\(ADK-W003 \(iface\.wallClock\)\.Now → time\.Now\)$`

// Pure has only pure implementations: calls through it stay quiet.
type Pure interface{ Double(n int) int }

type doubler struct{}

func (doubler) Double(n int) int { return 2 * n }

// Agent holds its dependencies as interfaces.
type Agent struct {
	clock Clock
	store d.Store
	pure  Pure
	out   io.Writer
}

func (a *Agent) Run(ctx workflow.Context) error { // want Run:`^reaches\(ADK-W003 \(\*iface\.Agent\)\.Run → \(iface\.Clock\)\.Now → \(iface\.wallClock\)\.Now → time\.Now; ADK-W004 \(\*iface\.Agent\)\.Run → \(d\.Store\)\.Load → \(\*d\.fileStore\)\.Load → os\.ReadFile\)$`
	_ = a.clock.Now()        // want `ADK-W005 helper reaches the wall clock \(ADK-W003\) on the workflow path \(\(iface.Clock\).Now → \(iface.wallClock\).Now → time.Now\)`
	_, _ = a.store.Load("k") // want `\(\(d.Store\).Load → \(\*d.fileStore\).Load → os.ReadFile\)`
	_ = a.pure.Double(2)     // only pure implementations
	_, _ = a.out.Write(nil)  // a standard library interface is not resolved
	f := workflow.ExecuteActivity(ctx, "activity")
	return f.Get(ctx, nil) // an SDK interface is not resolved
}
