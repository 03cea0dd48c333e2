// Command workflowguard reports replay hazards on the Temporal workflow path.
//
//	go run ./workflowguard/cmd/workflowguard ./...
//	go run ./workflowguard/cmd/workflowguard -fix ./...   # apply the suggested fixes
//	go vet -vettool=$(which workflowguard) ./...
package main

import (
	"os"
	"runtime/debug"

	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis/singlechecker"
)

// gcPercent is the collector's target when GOGC is not set. The driver holds the syntax and
// types of every package in the build until the run ends, so the peak is that live heap plus
// the collector's headroom; a smaller headroom lowers the peak for a little CPU (GUARD.md).
const gcPercent = 75

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	singlechecker.Main(workflowguard.Analyzer)
}
