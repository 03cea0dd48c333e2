// Package pool is a worker pool in a module of its own: Run fans out in goroutines, Drain only
// uses channels of its own.
package pool

// Run calls f on every item from a goroutine of its own.
func Run(items []string, f func(string)) { // want Run:`^reaches\(ADK-W006 pool.Run → go statement\)$`
	for _, it := range items {
		go f(it)
	}
}

// Drain passes the items through a buffered channel of its own and returns them.
func Drain(items []string) []string { // want Drain:`^reaches\(ADK-W006 pool.Drain → send on a Go channel\)$`
	ch := make(chan string, len(items))
	for _, it := range items {
		ch <- it
	}
	close(ch)
	var out []string
	for it := range ch {
		out = append(out, it)
	}
	return out
}
