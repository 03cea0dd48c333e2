package policies

import (
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// The bounds of a derived heartbeat window.
const (
	// MinHeartbeatWindow is the narrowest derived window: a slow first token
	// is not a dead worker.
	MinHeartbeatWindow = 5 * time.Second
	// MaxHeartbeatWindow is the widest derived window: past it a dead worker
	// goes unnoticed either way.
	MaxHeartbeatWindow = 60 * time.Second
)

// HeartbeatWindowFor fits a heartbeat window inside an activity of the given
// timeout: a tenth of it, never under MinHeartbeatWindow and never over
// MaxHeartbeatWindow; and never more than half the timeout, so that an
// activity shorter than ten seconds still has a window it can breach with
// a beat to spare (8s gives 4s). A timeout too short to hold a window (under
// 2ns) is an error.
func HeartbeatWindowFor(timeout time.Duration) (time.Duration, error) {
	if timeout <= 0 {
		return 0, fmt.Errorf("policies: timeout is %v: it must be greater than zero", timeout)
	}
	window := min(max(timeout/10, MinHeartbeatWindow), MaxHeartbeatWindow)
	if window > timeout/2 {
		window = timeout / 2
	}
	if window <= 0 {
		return 0, fmt.Errorf("policies: timeout %v is too short to fit a heartbeat window", timeout)
	}
	return window, nil
}

// ActivityPolicyFor returns the policy for a call of class c whose tool or
// activity declared timeout. The windows follow the tool, not the worker:
// timeout replaces StartToClose and the heartbeat window is derived from it
// (HeartbeatWindowFor); a class without a heartbeat (TOOL) stays without.
//
// base is a policy the consumer already tuned; it keeps its retry settings
// and only the windows are derived. If base is nil, the class default is
// used. A timeout of zero declares nothing: the base is returned as it is.
func ActivityPolicyFor(c temporaladk.Class, timeout time.Duration, base *ActivityPolicy) (ActivityPolicy, error) {
	c = vocab.CanonicalClass(c)
	if !c.Valid() {
		return ActivityPolicy{}, fmt.Errorf("policies: unknown activity class %q (want one of MODEL, TOOL, RETRIEVAL, MEMORY)", c)
	}
	var p ActivityPolicy
	if base == nil {
		p = defaults[c]
	} else {
		p = *base
		p.Class = vocab.CanonicalClass(p.Class)
		if p.Class == "" {
			p.Class = c
		}
		if p.Class != c {
			return ActivityPolicy{}, fmt.Errorf("policies: base policy is for class %s, not %s", p.Class, c)
		}
	}
	if timeout < 0 {
		return ActivityPolicy{}, fmt.Errorf("policies: declared timeout is %v: it must not be negative (zero declares none)", timeout)
	}
	if timeout > 0 {
		p.StartToClose = timeout
		if p.Heartbeat > 0 {
			window, err := HeartbeatWindowFor(timeout)
			if err != nil {
				return ActivityPolicy{}, err
			}
			p.Heartbeat = window
		}
	}
	if err := p.Validate(); err != nil {
		return ActivityPolicy{}, err
	}
	return p, nil
}

// AttemptsForTool returns how many attempts a tool call gets under policy p:
// one for a tool declared Effectful or Undeclared (treated as effectful),
// because the second attempt books a second seat; the policy's MaxAttempts
// for ReadOnly and Idempotent tools, and for an effectful one called with an
// idempotency key, because the second call then lands on the first call's
// result rather than beside it. A value that is not one of the four
// declarations gets one attempt: nothing safe was declared.
func AttemptsForTool(p ActivityPolicy, idempotency temporaladk.Idempotency, hasKey bool) int {
	if !idempotency.Valid() || (idempotency.TreatedAsEffectful() && !hasKey) {
		return 1
	}
	return p.Retry.MaxAttempts
}
