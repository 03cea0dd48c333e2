package temporaladk

import (
	"slices"

	"github.com/temporaladk/adk-go/internal/kitcore"
)

// init gives the kit's own packages, through internal/kitcore, what they
// need of the error table and nothing else does.
func init() {
	kitcore.IsKitType = isKitType
	kitcore.NeverRetryableTypes = func() []string { return slices.Clone(neverRetryableTypes) }
	kitcore.ErrorTypes = tableRows
	kitcore.ErrorTypeOf = errorTypeOf
	kitcore.ApplicationErrorType = applicationErrorType
	kitcore.Retryable = retryable
}
