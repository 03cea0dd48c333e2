// Package benchkit holds the workloads and measurements behind the kit's
// benchmarks: no-op activities run sequentially or fanned out on a worker
// with the kit and on one without, interleaved pair by pair; retries whose
// start is compared with the wait they asked for; and the statistics that
// summarize them. The benchmark command (internal/bench) and the interceptors
// package's benchmarks use it, so that both measure the same things.
//
//	plain, kit, err := benchkit.StartWorkers(c, "bench")
//	result, err := benchkit.RunPairs(ctx, c, plain, kit, benchkit.Workload{Activities: 200}, 10)
//	fmt.Println(result.Ratio.Median, result.Ratio.CILow, result.Ratio.CIHigh)
package benchkit
