package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
)

// Record returns the full history of a workflow run once the run has closed,
// waiting for the close (bounded by ctx). An empty runID means the latest run,
// resolved once at the start so a continue-as-new cannot switch runs midway.
func Record(ctx context.Context, c client.Client, workflowID, runID string) (*historypb.History, error) {
	if workflowID == "" {
		return nil, errors.New("history: workflowID is empty")
	}
	if runID == "" {
		desc, err := c.DescribeWorkflowExecution(ctx, workflowID, "")
		if err != nil {
			return nil, fmt.Errorf("history: describing workflow %q: %w", workflowID, err)
		}
		runID = desc.GetWorkflowExecutionInfo().GetExecution().GetRunId()
	}
	// A long poll on the close event returns once the run has closed.
	closeIter := c.GetWorkflowHistory(ctx, workflowID, runID, true, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for closeIter.HasNext() {
		if _, err := closeIter.Next(); err != nil {
			return nil, fmt.Errorf("history: waiting for workflow %q run %q to close: %w", workflowID, runID, err)
		}
	}
	h := &historypb.History{}
	iter := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		event, err := iter.Next()
		if err != nil {
			return nil, fmt.Errorf("history: reading workflow %q run %q: %w", workflowID, runID, err)
		}
		h.Events = append(h.Events, event)
	}
	if len(h.Events) == 0 {
		return nil, fmt.Errorf("history: workflow %q run %q has no events", workflowID, runID)
	}
	return h, nil
}

// Marshal renders h as the indented JSON that `temporal workflow show
// --output json` writes and client.HistoryFromJSON reads.
func Marshal(h *historypb.History) ([]byte, error) {
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("history: encoding JSON: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteFile writes h to path as JSON, creating the parent directories. It
// writes a temporary file and renames it, so a reader never sees half a file.
func WriteFile(path string, h *historypb.History) error {
	b, err := Marshal(h)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".history-*.json")
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("history: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("history: writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// ReadFile reads a JSON history with client.HistoryFromJSON, the reader the
// SDK's replayer uses.
func ReadFile(path string) (*historypb.History, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	h, err := client.HistoryFromJSON(bytes.NewReader(b), client.HistoryJSONOptions{})
	if err != nil {
		return nil, fmt.Errorf("history: decoding %s: %w", path, err)
	}
	return h, nil
}

// WorkflowType is the workflow type name of a history, from its first event.
func WorkflowType(h *historypb.History) string {
	if len(h.GetEvents()) == 0 {
		return ""
	}
	return h.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
}
