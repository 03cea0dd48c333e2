// Command workflowguard reports replay hazards on the Temporal workflow path.
//
//	go run ./workflowguard/cmd/workflowguard ./...
//	go vet -vettool=$(which workflowguard) ./...
package main

import (
	"github.com/temporaladk/adk-go/workflowguard"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() { singlechecker.Main(workflowguard.Analyzer) }
