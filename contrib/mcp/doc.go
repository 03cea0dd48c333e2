// Package mcp turns the tools of an MCP server (through the official Go SDK,
// github.com/modelcontextprotocol/go-sdk) into TOOL activities of
// temporaladk whose retries follow what the server declares about each
// tool: readOnlyHint is READ_ONLY and idempotentHint IDEMPOTENT (the TOOL
// policy's attempts), anything else, destructive or unannotated, is
// EFFECTFUL: one attempt without an idempotency key, whatever a retry
// policy says; with a key, which the tool receives in
// _meta[IdempotencyKeyMeta], the attempts its retry policy gives (the TOOL
// policy's, one by default).
//
//	tools, err := mcp.New(ctx, mcp.Options{Server: "files", Transport: connect, Timeout: 30 * time.Second})
//	err = tools.Declare(&kitOpts) // before interceptors.NewPlugin(kitOpts): one declaration per tool
//	tools.Register(w)             // on the worker: mcp.files.ListTools and mcp.files.<tool>
//
//	// in a workflow: list once (the list is in history; a replay never asks the server), then call
//	var listed []mcp.Tool
//	err := workflow.ExecuteActivity(ctx, mcp.ListActivity("files"), nil).Get(ctx, &listed)
//	err = workflow.ExecuteActivity(ctx, listed[0].ActivityType, map[string]any{"path": "a.txt"}).Get(ctx, &res)
//
// New lists the tools once when the worker starts, outside any workflow, to
// declare each tool's activity; a tool the server adds later needs a worker
// restart. The ListTools activity is declared RETRIEVAL: a read. A tool's declared timeout (Options.Timeout, Options.Timeouts)
// becomes its StartToClose, with the windows derived as for any tool.
//
// Failures: a result with isError is a transient *temporaladk.ToolFailureError
// (the idempotency decides whether it is retried); a JSON-RPC error answer is
// a permanent one; a lost connection or an unreachable server is a transient
// one, and the next attempt opens a new session.
//
// This is its own Go module, so that the core module does not depend on the
// SDK.
package mcp
