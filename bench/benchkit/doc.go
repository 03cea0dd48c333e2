// Package benchkit is the project's measuring harness: the workloads and
// measurements behind the kit's benchmarks. It runs no-op activities
// sequentially or fanned out on a worker with the kit and on one without,
// interleaved pair by pair; retries whose start is compared with the wait
// they asked for; and the statistics that summarize them. The benchmark
// command (go run ./bench), the interceptors package's benchmarks and the
// reliability heap test use it, so that all of them measure the same things.
//
// It is importable only because those users live in different packages of
// this module. It is not part of the kit and promises no API: it changes
// whenever the benchmarks it serves do.
//
//	plain, kit, err := benchkit.StartWorkers(c, "bench")
//	result, err := benchkit.RunPairs(ctx, c, plain, kit, benchkit.Workload{Activities: 200}, 10)
//	fmt.Println(result.Ratio.Median, result.Ratio.CILow, result.Ratio.CIHigh)
package benchkit
