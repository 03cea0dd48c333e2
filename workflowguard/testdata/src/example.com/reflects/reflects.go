// Package reflects calls hazards through reflection and through a method value of an embedded,
// clock-seeded *rand.Rand.
package reflects

import (
	"math/rand"
	"reflect"
	"time"

	"go.temporal.io/sdk/workflow"
)

type picker struct{ *rand.Rand }

func ReflectWorkflow(ctx workflow.Context) { // want ReflectWorkflow:`reaches`
	out := reflect.ValueOf(time.Now).Call(nil) // want `^ADK-W003 wall clock on the workflow path \(time.Now, taken as a function value\)`
	_ = out
	v := reflect.ValueOf(time.Sleep) // want `\(time.Sleep, taken as a function value\)`
	v.Call([]reflect.Value{reflect.ValueOf(time.Second)})
	p := picker{rand.New(rand.NewSource(time.Now().UnixNano()))} // want `\(time.Now\)`
	pick := p.Intn                                               // want `^ADK-W002 .*\(\(\*math/rand.Rand\).Intn on a source seeded from time.Now, taken as a function value\)`
	_ = pick(3)

	// Safe: a reflected value never called, a fixed-seed embedded generator.
	_ = reflect.ValueOf(time.Now).Kind()
	q := picker{rand.New(rand.NewSource(1))}
	draw := q.Intn
	_ = draw(3)
}
