package interceptors

import (
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// The failures the kit raises itself, one constructor a type: each is its
// typed error (temporaladk.BudgetClosedError, ...) as the ApplicationError
// the server records, made by raise. msg is the message; cause, where there
// is one, the attempt's own failure.

func badCallHeader(msg string) error { return raise(&temporaladk.BadCallHeaderError{Message: msg}) }

func budgetUnavailable(msg string, cause error) error {
	return raise(&temporaladk.BudgetUnavailableError{Message: msg, Cause: cause})
}

func runOutOfUpdates(msg string, cause error) error {
	return raise(&temporaladk.RunOutOfUpdatesError{Message: msg, Cause: cause})
}

func budgetClosed(msg string, cause error) error {
	return raise(&temporaladk.BudgetClosedError{Message: msg, Cause: cause})
}

func misconfiguredCall(msg string) error { return raise(&temporaladk.MisconfiguredError{Message: msg}) }

func retryRefused(msg string) error { return raise(&temporaladk.RetryRefusedError{Message: msg}) }

func modelUnpriced(msg string, cause error) error {
	return raise(&temporaladk.ModelUnpricedError{Message: msg, Cause: cause})
}

func approvalRejected(msg string) error {
	return raise(&temporaladk.ApprovalRejectedError{Message: msg})
}

func approvalNotGranted(msg string) error {
	return raise(&temporaladk.ApprovalNotGrantedError{Message: msg})
}

// raise converts kit as every kit error crosses a boundary
// (vocab.ToApplicationError), with its retryability and wait from its row of
// the error table through DecideWait, the one wait rule: non-retryable for a
// row that is not retried, the row's fixed wait for one that is. It draws
// nothing, so workflow code may call it.
func raise(kit temporaladk.Error) error {
	var opts vocab.ConvertOptions
	d, err := policies.DecideWait(policies.WaitInput{Err: kit})
	switch {
	case err != nil:
		// Retryable with no wait of the kit's: the server's backoff.
	case d.Final:
		opts.Final = true
	default:
		opts.NextRetryDelay = max(d.Wait, minNextRetryDelay)
	}
	return vocab.ToApplicationError(kit, opts)
}
