// Package rand is a deterministic package that happens to be called rand.
package rand

func Float64() float64 { return 0.5 }
func Intn(n int) int   { return 0 }
