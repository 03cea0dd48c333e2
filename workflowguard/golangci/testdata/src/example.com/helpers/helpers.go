// Package helpers is in no workflow package pattern: its hazard is not reported here, but its
// fact still reaches the workflows that call it.
package helpers

import "math/rand/v2"

func Jitter() int64 { // want Jitter:`^reaches\(ADK-W002 helpers\.Jitter → math/rand/v2\.Int64N\)$`
	return rand.Int64N(10)
}
