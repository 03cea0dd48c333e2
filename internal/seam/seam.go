// Package seam hands the kit's construction seams to testsuite without
// exporting them from interceptors: the transport of charge Updates, the
// retry policy of an activity task that carries none, and how often a run
// scheduled an activity ID. A worker's kit sends charges and reads the
// run's history with the activity's client and reads the task's retry
// policy; the SDK's test environment can do none of these, so testsuite
// builds its kit with NewPlugin here, which package interceptors sets when
// it is initialised.
package seam

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/wire"
)

// Seams are what a kit is built with besides its Options.
type Seams struct {
	// Transport sends the charge Updates of budgeted calls. If not set, the
	// activity's own client sends them.
	Transport wire.ChargeTransport
	// RetryPolicyOf gives the retry policy of the attempt ctx serves when
	// its task carries none in activity.Info.RetryPolicy, as the SDK's test
	// environment's tasks do; a server's tasks always carry theirs, which
	// wins. If not set, such a task has no retry settings.
	RetryPolicyOf func(ctx context.Context, info activity.Info) *temporal.RetryPolicy
	// SchedulingsOf counts the activities the run of the attempt ctx serves
	// scheduled with its activity ID (info.ActivityID), as far as two: the
	// activity side runs an approved call's grant for the first only. If
	// not set, the activity's client reads the run's history.
	SchedulingsOf func(ctx context.Context, info activity.Info) (int, error)
}

// NewPlugin is interceptors.NewPlugin(opts) built with seams: opts must be
// an interceptors.Options. Package interceptors sets it at init; it is nil
// in a program that does not link interceptors, which testsuite does.
var NewPlugin func(opts any, seams Seams) (*temporal.SimplePlugin, error)
