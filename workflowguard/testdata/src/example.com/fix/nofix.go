package fix

import (
	"time"

	"example.com/b"
)

// NoImport's file does not import the workflow package: no rewrite is offered.
func NoImport(ctx b.Ctx) time.Time { // want NoImport:`^reaches\(ADK-W003 fix\.NoImport → time\.Now\)$`
	return time.Now() // want `\(time.Now\)`
}
