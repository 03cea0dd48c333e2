package policies

import (
	"fmt"
	"time"

	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/temporaladk"
)

// DefaultMaxRetryAfter is the longest provider Retry-After the defaults
// honour.
const DefaultMaxRetryAfter = 60 * time.Second

// DefaultBackoffCoefficient is the backoff coefficient of every default.
const DefaultBackoffCoefficient = 2.0

// defaults is the class table. These are values, not contract: they may be
// retuned in a patch release.
var defaults = map[temporaladk.Class]ActivityPolicy{
	temporaladk.Model: {
		Class: temporaladk.Model, StartToClose: 900 * time.Second, Heartbeat: 60 * time.Second,
		Retry: RetryConfig{MaxAttempts: 3, InitialInterval: time.Second, BackoffCoefficient: DefaultBackoffCoefficient,
			MaxInterval: 30 * time.Second, MaxRetryAfter: DefaultMaxRetryAfter},
	},
	temporaladk.Tool: {
		Class: temporaladk.Tool, StartToClose: 60 * time.Second,
		Retry: RetryConfig{MaxAttempts: 1, InitialInterval: 500 * time.Millisecond, BackoffCoefficient: DefaultBackoffCoefficient,
			MaxInterval: 30 * time.Second, MaxRetryAfter: DefaultMaxRetryAfter},
	},
	temporaladk.Retrieval: {
		Class: temporaladk.Retrieval, StartToClose: 30 * time.Second,
		Retry: RetryConfig{MaxAttempts: 3, InitialInterval: 250 * time.Millisecond, BackoffCoefficient: DefaultBackoffCoefficient,
			MaxInterval: 5 * time.Second, MaxRetryAfter: DefaultMaxRetryAfter},
	},
	temporaladk.Memory: {
		Class: temporaladk.Memory, StartToClose: 15 * time.Second,
		Retry: RetryConfig{MaxAttempts: 3, InitialInterval: 250 * time.Millisecond, BackoffCoefficient: DefaultBackoffCoefficient,
			MaxInterval: 5 * time.Second, MaxRetryAfter: DefaultMaxRetryAfter},
	},
}

// Default returns the default policy of class c:
//
//	class      StartToClose  Heartbeat  MaxAttempts  InitialInterval  MaxInterval
//	MODEL      900s          60s        3            1s               30s
//	TOOL       60s           none       1            0.5s             30s
//	RETRIEVAL  30s           none       3            0.25s            5s
//	MEMORY     15s           none       3            0.25s            5s
//
// BackoffCoefficient is 2 and MaxRetryAfter 60s for all. These are values,
// not contract: they may be retuned in a patch release. ActivityPolicy is
// the surface. The class is read in any letter case; one that is not one
// of the four is an error, never a silent default.
func Default(c temporaladk.Class) (ActivityPolicy, error) {
	p, ok := defaults[vocab.CanonicalClass(c)]
	if !ok {
		return ActivityPolicy{}, fmt.Errorf("policies: no policy for activity class %q (want one of MODEL, TOOL, RETRIEVAL, MEMORY)", c)
	}
	return p, nil
}
