package interceptors_test

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/observe"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

// capture is a metrics handler that sums counters and counts timer
// records by name and tags.
type capture struct {
	mu     *sync.Mutex
	tags   map[string]string
	totals map[string]int64
}

func newCapture() *capture {
	return &capture{mu: &sync.Mutex{}, tags: map[string]string{}, totals: map[string]int64{}}
}

func (c *capture) key(name string) string {
	parts := make([]string, 0, len(c.tags))
	for k, v := range c.tags {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return name + "{" + strings.Join(parts, ",") + "}"
}

func (c *capture) WithTags(tags map[string]string) client.MetricsHandler {
	merged := make(map[string]string, len(c.tags)+len(tags))
	for k, v := range c.tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = v
	}
	return &capture{mu: c.mu, tags: merged, totals: c.totals}
}

func (c *capture) Counter(name string) client.MetricsCounter {
	return counterFunc(func(d int64) { c.add(name, d) })
}

func (c *capture) Gauge(string) client.MetricsGauge { return gaugeFunc(func(float64) {}) }

func (c *capture) Timer(name string) client.MetricsTimer {
	return timerFunc(func(time.Duration) { c.add(name, 1) })
}

func (c *capture) add(name string, d int64) {
	c.mu.Lock()
	c.totals[c.key(name)] += d
	c.mu.Unlock()
}

// sum adds the totals of a metric name whose tags include every given
// "k=v".
func (c *capture) sum(name string, tags ...string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for k, v := range c.totals {
		if !strings.HasPrefix(k, name+"{") {
			continue
		}
		ok := true
		for _, tag := range tags {
			if !strings.Contains(k, tag) {
				ok = false
			}
		}
		if ok {
			n += v
		}
	}
	return n
}

type counterFunc func(int64)

func (f counterFunc) Inc(d int64) { f(d) }

type gaugeFunc func(float64)

func (f gaugeFunc) Update(v float64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }

func TestUnitMetrics(t *testing.T) {
	m := newCapture()
	var s testsuite.WorkflowTestSuite
	s.SetMetricsHandler(m)
	env := s.NewTestWorkflowEnvironment()
	rec := &kittest.Recorder{}
	env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{rec}, Plugins: []worker.Plugin{newEnvKit(t, env, interceptors.Options{})}})
	acts := &Activities{log: newAttemptLog()}
	env.RegisterActivity(acts)
	env.RegisterWorkflow(FanOutWorkflow)
	// Three branches, a pool of one retry: 3 first attempts and 1 retry; the
	// two other branches' retries are refused, and so is the third attempt of
	// the branch that got the retry.
	env.ExecuteWorkflow(FanOutWorkflow, "metrics", 3, 1, -1)
	require.NoError(t, env.GetWorkflowError())
	assert.EqualValues(t, 4, m.sum(observe.MetricAttempts, "class=retrieval", "activity_type=Fail"))
	assert.EqualValues(t, 1, m.sum(observe.MetricRetries, "class=retrieval"))
	assert.EqualValues(t, 3, m.sum(observe.MetricBudgetRefusals, "budget=retries", "class=retrieval"))
	assert.EqualValues(t, 1, m.sum(observe.MetricRetryWait), "a wait is recorded for the one retry the pool granted; refused ones end the call")
}
