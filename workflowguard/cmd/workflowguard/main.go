// Command workflowguard reports replay hazards on the Temporal workflow path.
//
//	go run ./workflowguard/cmd/workflowguard ./...
//	go run ./workflowguard/cmd/workflowguard -fix ./...   # apply the suggested fixes
//	go vet -vettool=$(which workflowguard) ./...
//
// A run over package patterns (with or without -providers) uses the lean driver of driver.go;
// any other flag, and go vet's protocol, go to singlechecker.
package main

import (
	"os"

	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() {
	if patterns, flags, ok := ownDriver(os.Args[1:]); ok {
		os.Exit(drive(patterns, flags, os.Stderr))
	}
	singlechecker.Main(workflowguard.Analyzer)
}
