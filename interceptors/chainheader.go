package interceptors

import (
	commonpb "go.temporal.io/api/common/v1"

	"github.com/temporaladk/adk-go/internal/budget"
)

// ChainState is what a run carried into the run it began, as the start
// header ChainHeaderKey holds it: the named budgets as they stood when the
// run continued as new (Runs: limit and spent; Pools: size, used and first
// attempts), and the ledger that charges the run's calls (Owner: the parent
// run's workflow ID and run ID, and the delegation there), for a child
// workflow started under a budget. Tools that read histories decode it
// with DecodeChainHeader.
type ChainState = budget.Carried

// DecodeChainHeader reads the kit's chain state from a Temporal header's
// fields (the Header.Fields of a WorkflowExecutionStarted event, or of the
// ContinueAsNew command's WorkflowExecutionContinuedAsNew event), and
// reports whether there was one. A field that does not decode, or holds
// numbers no run of the kit writes, is an error naming ChainHeaderKey.
func DecodeChainHeader(fields map[string]*commonpb.Payload) (ChainState, bool, error) {
	if p, ok := fields[ChainHeaderKey]; !ok || p == nil {
		return ChainState{}, false, nil
	}
	c, err := readChainHeader(fields)
	if err != nil {
		return ChainState{}, false, err
	}
	return c, true, nil
}
