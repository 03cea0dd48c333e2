// Command workflowguard reports replay hazards on the Temporal workflow path.
//
//	go get -tool github.com/temporaladk/adk-go/workflowguard/cmd/workflowguard
//	go tool workflowguard ./...
//	go tool workflowguard -fix ./...   # apply the suggested fixes
//	go vet -vettool=$(go tool -n workflowguard) ./...
//
// A run over package patterns (with or without -providers or -likely) uses the lean driver of
// driver.go; any other flag, and go vet's protocol, go to singlechecker. With -fix the command
// runs twice: once to apply the fixes, then once without -fix to print what remains, so that
// its exit status is 3 while findings remain, as it is without -fix.
package main

import (
	"os"

	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() {
	if fixArgs, rest, ok := fixRun(os.Args[1:]); ok && os.Getenv(fixingEnv) == "" {
		os.Exit(fixThenCheck(fixArgs, rest, os.Stdout, os.Stderr))
	}
	if patterns, flags, ok := ownDriver(os.Args[1:]); ok {
		os.Exit(drive(patterns, flags, os.Stderr))
	}
	singlechecker.Main(workflowguard.Analyzer)
}
