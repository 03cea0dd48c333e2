// Package likely reads a package-level value set at init from the clock: a likely finding only,
// which the likely setting turns off. With it off, nothing here is reported.
package likely

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

var startedAt = time.Now()

// Workflow reads the process's start time.
func Workflow(ctx workflow.Context) time.Time { return startedAt }
