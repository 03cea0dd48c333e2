package interceptors

import (
	"context"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"

	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// minNextRetryDelay stands in for a drawn wait of zero: Temporal reads a
// NextRetryDelay of zero as "not set" and would fall back to its own backoff,
// which is not the schedule the activity drew.
const minNextRetryDelay = time.Millisecond

// InterceptActivity wraps the activity's inbound calls.
func (i *Interceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &activityInbound{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, root: i}
}

type activityInbound struct {
	interceptor.ActivityInboundInterceptorBase
	root *Interceptor
}

func (a *activityInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	h, ok, err := readHeader(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Not a call the kit planned: left exactly as it was.
		return a.Next.ExecuteActivity(ctx, in)
	}
	info := activity.GetInfo(ctx)
	attempt := int(info.Attempt)
	if h.Attempt > 0 {
		attempt = h.Attempt
	}
	// No declaration ("") and a name this version does not know both read
	// as Undeclared: treated as effectful, the expensive direction.
	idempotency, _ := temporaladk.ParseIdempotency(h.Idempotency)
	call := temporaladk.ActivityCall{
		Class:          h.Class,
		Idempotency:    idempotency,
		IdempotencyKey: h.IdempotencyKey,
		Attempt:        attempt,
		MaxAttempts:    h.MaxAttempts,
	}
	metrics := activity.GetMetricsHandler(ctx).WithTags(map[string]string{"class": h.Class.Lower(), "activity_type": info.ActivityType.Name})
	metrics.Counter(MetricAttempts).Inc(1)
	if attempt > 1 {
		metrics.Counter(MetricRetries).Inc(1)
	}

	var stopBeating func()
	if info.HeartbeatTimeout >= temporaladk.BeatsPerWindow && !info.IsLocalActivity {
		beats := metrics.Counter(MetricHeartbeats)
		hb, herr := temporaladk.NewHeartbeater(func(beat temporaladk.Heartbeat) {
			activity.RecordHeartbeat(ctx, beat)
			beats.Inc(1)
		}, info.HeartbeatTimeout, a.root.now, info.ActivityType.Name)
		if herr != nil {
			return nil, herr
		}
		call.Heartbeater = hb
		beatCtx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			hb.Run(beatCtx)
		}()
		// No beat may follow the activity's return.
		stopBeating = func() { cancel(); wg.Wait() }
	}

	result, err := a.Next.ExecuteActivity(temporaladk.WithActivityCall(ctx, call), in)
	if stopBeating != nil {
		stopBeating()
	}
	if err == nil {
		return result, nil
	}
	return result, a.root.activityError(ctx, info, h, attempt, err, metrics)
}

// activityError turns a kit error into the ApplicationError that crosses the
// boundary, with the wait before the next attempt drawn here, inside the
// activity, and fitted to the call's deadline. Errors outside the kit's
// hierarchy pass unchanged.
func (i *Interceptor) activityError(ctx context.Context, info activity.Info, h CallHeader, attempt int, err error, metrics client.MetricsHandler) error {
	kit, ok := temporaladk.AsError(err)
	if !ok {
		return err
	}
	retry := policies.RetryConfig{
		MaxAttempts:        max(h.MaxAttempts, 1),
		InitialInterval:    h.InitialInterval,
		BackoffCoefficient: h.BackoffCoefficient,
		MaxInterval:        h.MaxInterval,
		MaxRetryAfter:      h.MaxRetryAfter,
	}
	notRetryable := !kit.Retryable() || temporaladk.IsNeverRetryableType(kit.Type())
	if lastAttempt := h.MaxAttempts > 0 && attempt >= h.MaxAttempts; notRetryable || lastAttempt {
		return temporaladk.ToApplicationError(err, temporaladk.ConvertOptions{Final: notRetryable})
	}

	var decision temporaladk.RetryDecision
	if retryAfter, asked := temporaladk.RetryAfterOf(err); asked {
		decision = retry.RetryAfterDecision(retryAfter)
	} else {
		var jerr error
		if decision, jerr = retry.JitterDecision(attempt, i.random()); jerr != nil {
			// A Random option that returns numbers outside [0, 1) is a
			// programming error of the caller's; the failure is kept and the
			// server's own schedule applies.
			activity.GetLogger(ctx).Error("temporaladk: jitter draw refused", "error", jerr)
			return temporaladk.ToApplicationError(err, temporaladk.ConvertOptions{})
		}
	}
	if total, elapsed, has := deadlineOf(info, h, i.now()); has {
		decision = policies.Fit(decision, total, elapsed)
	}
	if decision.Truncated {
		metrics.Counter(MetricTruncatedWaits).Inc(1)
		activity.GetLogger(ctx).Warn("temporaladk: retry wait truncated to the deadline",
			"requested", decision.Requested, "wait", decision.Wait, "reason", decision.Reason)
	}
	if decision.Final {
		activity.GetLogger(ctx).Info("temporaladk: no further attempt", "reason", decision.Reason)
	} else {
		metrics.Timer(MetricRetryWait).Record(decision.Wait)
	}
	delay := decision.Wait
	if delay <= 0 {
		delay = minNextRetryDelay
	}
	return temporaladk.ToApplicationError(err, temporaladk.ConvertOptions{NextRetryDelay: delay, Final: decision.Final, Decision: &decision})
}

// deadlineOf returns the call's overall deadline as a total and the part of
// it already gone: the workflow's deadline when it drives the retries, else
// the activity's ScheduleToClose measured from its first schedule. has is
// false when the call has no overall deadline.
func deadlineOf(info activity.Info, h CallHeader, now time.Time) (total, elapsed time.Duration, has bool) {
	switch {
	case !h.Deadline.IsZero():
		start := info.ScheduledTime
		if start.IsZero() || !start.Before(h.Deadline) {
			start = now
		}
		return h.Deadline.Sub(start), now.Sub(start), true
	case info.ScheduleToCloseTimeout > 0 && !info.ScheduledTime.IsZero():
		return info.ScheduleToCloseTimeout, now.Sub(info.ScheduledTime), true
	}
	return 0, 0, false
}
