package benchkit_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/bench/benchkit"
	"github.com/temporaladk/adk-go/testsuite"
)

// The server's CPU time is read from /proc: Linux only, by this file's name.
func TestRunPairsWithCPU(t *testing.T) {
	s := testsuite.DevServerFor(t)
	meter, err := benchkit.NewCPUMeter(s.PID())
	require.NoError(t, err)
	plain, kit, err := benchkit.StartWorkers(s.Client(), "bench-pairs-cpu")
	require.NoError(t, err)
	t.Cleanup(plain.Stop)
	t.Cleanup(kit.Stop)
	res, err := benchkit.RunPairs(context.Background(), s.Client(), plain, kit, benchkit.Workload{Activities: 20}, 2, meter)
	require.NoError(t, err)
	require.NotNil(t, res.CPU)
	assert.Equal(t, 2, res.CPU.Ratio.N)
	assert.Positive(t, res.CPU.Plain.Min, "20 activities cost some CPU")
	assert.Positive(t, res.CPU.WorkerRatio.Min)
}
