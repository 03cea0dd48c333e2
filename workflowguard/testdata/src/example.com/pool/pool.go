// Package pool is a worker-pool helper: Run starts goroutines, Size does not.
package pool

// Run calls f on every item from a goroutine of its own.
func Run(items []string, f func(string)) { // want Run:`^reaches\(ADK-W006 pool.Run → pool.start → go statement\)$`
	for _, it := range items {
		start(it, f)
	}
}

func start(item string, f func(string)) { // want start:`^reaches\(ADK-W006 pool.start → go statement\)$`
	go f(item)
}

// Size starts nothing.
func Size(items []string) int { return len(items) }
