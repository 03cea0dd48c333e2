package history

import (
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
)

// TestReplayConverterLeavesLargePayloadsOut encodes a value at the limit
// and one past it: the first is kept and decodes; the second becomes a
// stand-in that names its size, and decoding it is an error naming the
// replay, never a wrong value.
func TestReplayConverterLeavesLargePayloadsOut(t *testing.T) {
	t.Parallel()
	dc := ReplayConverter(nil)
	plain := converter.GetDefaultDataConverter()

	// A JSON string of n bytes encodes to n+2 bytes of data plus the
	// metadata: find the largest string the limit keeps.
	small := strings.Repeat("a", OmitAbove-64)
	p, err := plain.ToPayload(small)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Size(); n > OmitAbove {
		t.Fatalf("the small value's payload is %d bytes, over the limit %d: the test's sizes are wrong", n, OmitAbove)
	}
	kept, err := dc.ToPayload(small)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := dc.FromPayload(kept, &back); err != nil || back != small {
		t.Fatalf("a payload under the limit does not round-trip: %v", err)
	}

	large := strings.Repeat("b", OmitAbove+1)
	left, err := dc.ToPayload(large)
	if err != nil {
		t.Fatal(err)
	}
	if enc := string(left.GetMetadata()[converter.MetadataEncoding]); enc != OmittedEncoding {
		t.Fatalf("a payload over the limit is encoded %q, want %q", enc, OmittedEncoding)
	}
	if left.Size() > 256 {
		t.Fatalf("the stand-in is %d bytes: it must hold the size, not the value", left.Size())
	}
	err = dc.FromPayload(left, &back)
	if err == nil || !strings.Contains(err.Error(), "during a replay") {
		t.Fatalf("decoding the stand-in: %v, want an error saying the replay left it out", err)
	}

	// ToPayloads leaves out each large argument on its own.
	ps, err := dc.ToPayloads(small, large)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(ps.GetPayloads()[0].GetMetadata()[converter.MetadataEncoding]); got == OmittedEncoding {
		t.Fatal("the small argument was left out")
	}
	if got := string(ps.GetPayloads()[1].GetMetadata()[converter.MetadataEncoding]); got != OmittedEncoding {
		t.Fatal("the large argument was kept")
	}
	if _, ok := dc.(converter.ContextAware); !ok {
		t.Fatal("the replay's converter must pass the workflow context on to the user's")
	}
}

// TestUnreadClearsOnlyWhatAReplayNeverReads clears the inputs of what a
// workflow scheduled, started or signalled, and keeps its own input, the
// results it decodes and the signals it receives.
func TestUnreadClearsOnlyWhatAReplayNeverReads(t *testing.T) {
	t.Parallel()
	in := func(s string) *commonpb.Payloads {
		return &commonpb.Payloads{Payloads: []*commonpb.Payload{{Data: []byte(s)}}}
	}
	h := &historypb.History{Events: []*historypb.HistoryEvent{
		{Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{Input: in("start")}}},
		{Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{Input: in("scheduled")}}},
		{Attributes: &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{Result: in("result")}}},
		{Attributes: &historypb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes{StartChildWorkflowExecutionInitiatedEventAttributes: &historypb.StartChildWorkflowExecutionInitiatedEventAttributes{Input: in("child")}}},
		{Attributes: &historypb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes{SignalExternalWorkflowExecutionInitiatedEventAttributes: &historypb.SignalExternalWorkflowExecutionInitiatedEventAttributes{Input: in("signal out")}}},
		{Attributes: &historypb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &historypb.WorkflowExecutionSignaledEventAttributes{Input: in("signal in")}}},
		{Attributes: &historypb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &historypb.WorkflowExecutionContinuedAsNewEventAttributes{Input: in("next run")}}},
	}}
	Unread(h)
	e := h.GetEvents()
	for i, kept := range map[int]*commonpb.Payloads{
		0: e[0].GetWorkflowExecutionStartedEventAttributes().GetInput(),
		2: e[2].GetActivityTaskCompletedEventAttributes().GetResult(),
		5: e[5].GetWorkflowExecutionSignaledEventAttributes().GetInput(),
	} {
		if kept == nil {
			t.Errorf("event %d lost what the workflow reads", i)
		}
	}
	for i, cleared := range map[int]*commonpb.Payloads{
		1: e[1].GetActivityTaskScheduledEventAttributes().GetInput(),
		3: e[3].GetStartChildWorkflowExecutionInitiatedEventAttributes().GetInput(),
		4: e[4].GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetInput(),
		6: e[6].GetWorkflowExecutionContinuedAsNewEventAttributes().GetInput(),
	} {
		if cleared != nil {
			t.Errorf("event %d keeps an input no replay reads", i)
		}
	}
}

// TestReplayUsesTheReplayConverter holds the wiring: the replayer Replay
// builds encodes through ReplayConverter around the caller's converter, so
// that the commands a whole-history replay keeps hold no large input.
func TestReplayUsesTheReplayConverter(t *testing.T) {
	t.Parallel()
	mine := converter.NewJSONPayloadConverter()
	dc := converter.NewCompositeDataConverter(mine)
	got, ok := replayerOptions(ReplayOptions{DataConverter: dc}).DataConverter.(replayConverter)
	if !ok {
		t.Fatalf("the replayer's data converter is %T, want the replay converter", replayerOptions(ReplayOptions{DataConverter: dc}).DataConverter)
	}
	if got.dc != dc {
		t.Fatal("the replay converter does not wrap the caller's converter")
	}
	if _, ok := replayerOptions(ReplayOptions{}).DataConverter.(replayConverter); !ok {
		t.Fatal("without a converter of the caller's, the replay converter must wrap the SDK's default")
	}
}
