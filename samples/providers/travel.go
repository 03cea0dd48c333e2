package main

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TravelServer is the name of the MCP server the sample starts in-process.
const TravelServer = "travel"

type flightArgs struct {
	Flight string `json:"flight" jsonschema:"the flight number, e.g. LH400"`
}

type seatChange struct {
	Flight    string `json:"flight" jsonschema:"the flight number"`
	Passenger string `json:"passenger" jsonschema:"the passenger"`
	Seat      string `json:"seat" jsonschema:"the new seat"`
}

// newTravelServer is an MCP server (the official Go SDK's) with a tool
// annotated each way: baggage_rules is read-only, change_seat destructive.
// The run calls baggage_rules; both are declared to the kit from their
// annotations.
func newTravelServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "travel", Version: "v1"}, nil)
	sdk.AddTool(s, &sdk.Tool{
		Name:        "baggage_rules",
		Description: "The checked-bag rules of a flight.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in flightArgs) (*sdk.CallToolResult, any, error) {
		if in.Flight == "" {
			return nil, nil, fmt.Errorf("flight is empty")
		}
		rules := fmt.Sprintf("%s: one checked bag up to 23 kg; a seat change keeps the bag on the booking.", strings.ToUpper(in.Flight))
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: rules}}}, nil, nil
	})
	destructive := true
	sdk.AddTool(s, &sdk.Tool{
		Name:        "change_seat",
		Description: "Moves a passenger to another seat.",
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in seatChange) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Passenger + " moved to " + in.Seat}}}, nil, nil
	})
	return s
}

// inProcess returns a transport factory that connects each new session to
// s through the SDK's in-memory transports.
func inProcess(s *sdk.Server) func(ctx context.Context) (sdk.Transport, error) {
	return func(ctx context.Context) (sdk.Transport, error) {
		client, server := sdk.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), server, nil); err != nil {
			return nil, err
		}
		return client, nil
	}
}
