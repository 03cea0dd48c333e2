package mcp_test

import (
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/temporaladk/adk-go/contrib/mcp"
)

// What an MCP tool's annotations say about repeating it, as the kit reads
// them.
func ExampleIdempotencyOf() {
	destructive := true
	fmt.Println(mcp.IdempotencyOf(&sdk.ToolAnnotations{ReadOnlyHint: true}))
	fmt.Println(mcp.IdempotencyOf(&sdk.ToolAnnotations{IdempotentHint: true}))
	fmt.Println(mcp.IdempotencyOf(&sdk.ToolAnnotations{DestructiveHint: &destructive}))
	fmt.Println(mcp.IdempotencyOf(nil))
	fmt.Println(mcp.ToolActivity("travel", "baggage_rules"), mcp.ListActivity("travel"))
	// Output:
	// READ_ONLY
	// IDEMPOTENT
	// EFFECTFUL
	// EFFECTFUL
	// mcp.travel.baggage_rules mcp.travel.ListTools
}
