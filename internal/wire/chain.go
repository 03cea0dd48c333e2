package wire

import (
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
)

// ChainHeader is the part of the header ChainHeaderKey a reader of
// histories needs: the named budgets as they stood and the owner. The kit
// writes the header from internal/budget's Carried; this is its JSON, read
// back, and names the same fields, with Carried's JSON tags byte for byte
// (a retry budget's "size" and "used" are its Limit and Spent).
type ChainHeader struct {
	Attempts map[string]struct {
		Limit int `json:"limit"`
		Spent int `json:"spent"`
	} `json:"runs,omitempty"`
	Retries map[string]struct {
		Limit int `json:"size"`
		Spent int `json:"used"`
	} `json:"pools,omitempty"`
	Tokens map[string]MeterHeader `json:"tokens,omitempty"`
	Costs  map[string]MeterHeader `json:"costs,omitempty"`
	Owner  *struct {
		WorkflowID string `json:"workflow_id"`
		RunID      string `json:"run_id"`
		Delegation string `json:"delegation"`
	} `json:"owner,omitempty"`
}

// MeterHeader is a token or cost budget in ChainHeader.
type MeterHeader struct {
	Limit int64 `json:"limit"`
	Spent int64 `json:"spent"`
}

// DecodeChainHeader reads the header ChainHeaderKey from a Temporal
// header's fields (a start, continue-as-new or child-start event's), and
// reports whether there was one. One that does not decode is an error
// naming ChainHeaderKey.
func DecodeChainHeader(fields map[string]*commonpb.Payload) (ChainHeader, bool, error) {
	p, ok := fields[ChainHeaderKey]
	if !ok || p == nil {
		return ChainHeader{}, false, nil
	}
	var c ChainHeader
	if err := Converter.FromPayload(p, &c); err != nil {
		return ChainHeader{}, false, fmt.Errorf("temporaladk: the chain header %q does not decode: %w", ChainHeaderKey, err)
	}
	return c, true, nil
}
