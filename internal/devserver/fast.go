package devserver

// DynamicConfigValue is one `--dynamic-config-value KEY=VALUE` setting of
// `temporal server start-dev`.
type DynamicConfigValue struct {
	// Key is the server's dynamic config key, spelled as the server declares it.
	Key string
	// Value is the value as the CLI reads it: JSON (a duration is a JSON string).
	Value string
	// Default is the server's own value, in the same form.
	Default string
	// Why says what the value changes against the CLI's default.
	Why string
}

// Arg is the value as the CLI flag's argument: KEY=VALUE.
func (v DynamicConfigValue) Arg() string { return v.Key + "=" + v.Value }

// FastDynamicConfig returns the dynamic config values that make a dev server
// dispatch tasks in milliseconds instead of tens of milliseconds, and fire
// retries and timers when they are due instead of up to a second late. They
// change how quickly the single-process server moves tasks between its own
// queues, not what it does with them: histories, retries and timeouts are
// the same. Each call returns a new slice.
//
// Where the time goes on a plain `temporal server start-dev` (Temporal
// server v1.29, one history shard):
//   - every workflow and activity task leaves history through the transfer
//     queue, whose reader is rate-limited to 20 reads a second
//     (history.transferProcessorMaxPollRPS): once the limiter's burst is
//     spent, each task waits up to 50 ms for the next read;
//   - a task queue has 4 partitions, and a worker's few pollers do not wait
//     on all of them, so a task written to a partition with no poller waits
//     to be forwarded;
//   - a timer, including an activity retry's backoff, is never set to fire
//     sooner than history.timerProcessorMaxTimeShift (1 s) after the timer
//     queue's last read, and that queue too is read at most 20 times a second.
func FastDynamicConfig() []DynamicConfigValue {
	return []DynamicConfigValue{
		{"history.transferProcessorMaxPollRPS", "10000", "20", "tasks leave history at once, not at the next of 20 reads a second"},
		{"history.timerProcessorMaxPollRPS", "10000", "20", "due timers and retries are read at once, not at the next of 20 reads a second"},
		{"history.timerProcessorMaxTimeShift", `"1ms"`, `"1s"`, "a timer or retry fires when due, not up to 1 s later"},
		{"matching.numTaskqueueReadPartitions", "1", "4", "one partition per task queue: a task never waits to be forwarded to a poller"},
		{"matching.numTaskqueueWritePartitions", "1", "4", "tasks are written to the one partition the pollers read"},
	}
}

// dynamicConfigArgs is values as CLI arguments.
func dynamicConfigArgs(values []DynamicConfigValue) []string {
	args := make([]string, 0, 2*len(values))
	for _, v := range values {
		args = append(args, "--dynamic-config-value", v.Arg())
	}
	return args
}

// FastArgs returns FastDynamicConfig as `temporal server start-dev` arguments.
func FastArgs() []string { return dynamicConfigArgs(FastDynamicConfig()) }
