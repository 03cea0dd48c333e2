package interceptors

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/temporaladk/adk-go/internal/charge"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/temporaladk"
)

// typeConstant is an exported Type* string constant of a package.
type typeConstant struct{ name, value, pos string }

// typeConstants reads, with go/parser, the exported string constants named
// Type… that the non-test files of the packages in dirs (relative to this
// package) declare, keyed "pkg.Name".
func typeConstants(t *testing.T, dirs ...string) map[string]typeConstant {
	t.Helper()
	out := map[string]typeConstant{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, decl := range f.Decls {
				gen, ok := decl.(*ast.GenDecl)
				if !ok || gen.Tok != token.CONST {
					continue
				}
				for _, spec := range gen.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if !name.IsExported() || !strings.HasPrefix(name.Name, "Type") || i >= len(vs.Values) {
							continue
						}
						key := f.Name.Name + "." + name.Name
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Errorf("%s: %s is not a string literal: the error table's test reads literals", fset.Position(name.Pos()), key)
							continue
						}
						v, err := strconv.Unquote(lit.Value)
						require.NoError(t, err)
						out[key] = typeConstant{name: key, value: v, pos: fset.Position(name.Pos()).String()}
					}
				}
			}
		}
	}
	return out
}

// TestErrorTableHasEveryType holds the error table to the code: every
// exported Type* constant of temporaladk, approvals and interceptors has a
// row of its value naming it, and every row names one of them, so that a
// type added without its row, or a row left behind, fails.
func TestErrorTableHasEveryType(t *testing.T) {
	consts := typeConstants(t, "../temporaladk", "../approvals", ".")
	require.GreaterOrEqual(t, len(consts), 20, "want the kit's Type constants")
	rows := map[string]vocab.ErrorType{}
	for _, row := range vocab.ErrorTypes() {
		_, dup := rows[row.Type]
		assert.False(t, dup, "%s has two rows", row.Type)
		rows[row.Type] = row
		c, ok := consts[row.Constant]
		if assert.True(t, ok, "the row of %s names %s, which is no exported Type constant", row.Type, row.Constant) {
			assert.Equal(t, c.value, row.Type, "the row names %s, whose value differs", row.Constant)
		}
		assert.NotEmpty(t, row.RaisedBy, "%s says who raises it", row.Type)
		assert.NotEmpty(t, row.Error, "%s names its Go error type: every kit error is typed", row.Type)
		assert.NotZero(t, row.Retry, "%s says whether it is retried", row.Type)
		assert.Equal(t, row.Retry == vocab.RetryByFields, row.Error != "" && slices.Contains([]string{temporaladk.TypeProvider, temporaladk.TypeRateLimit, temporaladk.TypeToolFailure}, row.Type),
			"%s: only a typed error has fields to decide by", row.Type)
	}
	for _, c := range consts {
		row, ok := rows[c.value]
		if assert.True(t, ok, "%s: %s = %q has no row in the error table (temporaladk/errortypes.go): add one", c.pos, c.name, c.value) {
			assert.Equal(t, c.name, row.Constant, "the row of %q names another constant", c.value)
		}
	}
}

// failures returns, for a row of the error table, the failures of its type
// the predicates are asked about, each with whether it is retryable: a
// typed error (both answers for a row decided by its fields), its
// ApplicationError as it crosses the activity boundary, and, for the kit's
// own failures, the ApplicationError as histories recorded before they had
// Go types hold it.
func failures(t *testing.T, row vocab.ErrorType) map[string]struct {
	err       error
	retryable bool
} {
	t.Helper()
	out := map[string]struct {
		err       error
		retryable bool
	}{}
	typed := map[string][]temporaladk.Error{
		temporaladk.TypeSchemaViolation:      {&temporaladk.SchemaViolationError{}},
		temporaladk.TypeGuardrailViolation:   {&temporaladk.GuardrailViolationError{}},
		temporaladk.TypeGuardrailEvaluation:  {&temporaladk.GuardrailEvaluationError{}},
		temporaladk.TypeBudgetExceeded:       {&temporaladk.BudgetExceededError{}},
		temporaladk.TypeApprovalDenied:       {&temporaladk.ApprovalDeniedError{}},
		temporaladk.TypeScopeEscalation:      {&temporaladk.ScopeEscalationError{}},
		temporaladk.TypeProvider:             {&temporaladk.ProviderError{StatusCode: 503}, &temporaladk.ProviderError{StatusCode: 400}},
		temporaladk.TypeProviderTimeout:      {&temporaladk.ProviderTimeoutError{}},
		temporaladk.TypeProviderUnavailable:  {&temporaladk.ProviderUnavailableError{}},
		temporaladk.TypeRateLimit:            {&temporaladk.RateLimitError{}, &temporaladk.RateLimitError{Quota: true}},
		temporaladk.TypeToolFailure:          {&temporaladk.ToolFailureError{Transient: true}, &temporaladk.ToolFailureError{}},
		temporaladk.TypeIndeterminateOutcome: {&temporaladk.IndeterminateOutcomeError{}},
		temporaladk.TypeBadCallHeader:        {&temporaladk.BadCallHeaderError{}},
		temporaladk.TypeBudgetUnavailable:    {&temporaladk.BudgetUnavailableError{}},
		temporaladk.TypeRunOutOfUpdates:      {&temporaladk.RunOutOfUpdatesError{}},
		temporaladk.TypeBudgetClosed:         {&temporaladk.BudgetClosedError{}},
		temporaladk.TypeMisconfigured:        {&temporaladk.MisconfiguredError{}},
		temporaladk.TypeRetryRefused:         {&temporaladk.RetryRefusedError{}},
		temporaladk.TypeModelUnpriced:        {&temporaladk.ModelUnpricedError{}},
		temporaladk.TypeApprovalRejected:     {&temporaladk.ApprovalRejectedError{}},
		temporaladk.TypeApprovalNotGranted:   {&temporaladk.ApprovalNotGrantedError{}},
	}
	errs, ok := typed[row.Type]
	require.True(t, ok, "%s (%s) has a row but no instance here: add one", row.Type, row.Error)
	if kitsOwn(row) {
		app := temporal.NewApplicationErrorWithOptions("kit", row.Type, temporal.ApplicationErrorOptions{NonRetryable: row.Retry != vocab.RetryYes})
		out["ApplicationError recorded without details"] = struct {
			err       error
			retryable bool
		}{app, row.Retry == vocab.RetryYes}
	}
	for i, e := range errs {
		require.Equal(t, row.Error, fmt.Sprintf("%T", e), "%s names its Go error type", row.Type)
		want := row.Retry == vocab.RetryYes || (row.Retry == vocab.RetryByFields && i == 0)
		name := e.Error()
		out[name] = struct {
			err       error
			retryable bool
		}{e, want}
		out[name+" as an ApplicationError"] = struct {
			err       error
			retryable bool
		}{vocab.ToApplicationError(e, vocab.ConvertOptions{}), want}
		if row.Formerly != "" {
			// As an earlier build recorded it, read back from history.
			fc := temporal.GetDefaultFailureConverter()
			former := temporal.NewApplicationErrorWithOptions(e.Error(), row.Formerly, temporal.ApplicationErrorOptions{
				NonRetryable: !want, Details: []any{reflect.ValueOf(e).Elem().Interface()},
			})
			out[name+" recorded under "+row.Formerly] = struct {
				err       error
				retryable bool
			}{fc.FailureToError(fc.ErrorToFailure(former)), want}
		}
	}
	return out
}

// Every predicate of retryability, and every reader of "the user's code
// did not run", agrees with the error table, row by row: the typed errors'
// Retryable, policies.Retryable and DecideWait, the never-retryable types
// every RetryPolicy of the kit lists, retriedByTemporal, and charge.RanUserCode.
func TestErrorTablePredicatesAgree(t *testing.T) {
	never := policies.RetryConfig{}.RetryPolicy().NonRetryableErrorTypes
	for _, row := range vocab.ErrorTypes() {
		t.Run(row.Type, func(t *testing.T) {
			assert.Equal(t, row.Retry == vocab.RetryNever, slices.Contains(never, row.Type), "NonRetryableErrorTypes")
			assert.Equal(t, row.Retry == vocab.RetryNever, vocab.IsNeverRetryableType(row.Type), "IsNeverRetryableType")
			for name, f := range failures(t, row) {
				got, ok := vocab.ErrorTypeOf(f.err)
				require.True(t, ok, name)
				assert.Equal(t, row.Type, got.Type, name)
				var kit temporaladk.Error
				if errors.As(f.err, &kit) {
					assert.Equal(t, f.retryable, kit.Retryable(), "%s: Retryable()", name)
				}
				assert.Equal(t, f.retryable, policies.Retryable(f.err), "%s: policies.Retryable", name)
				assert.Equal(t, f.retryable, retriedByTemporal(f.err, nil), "%s: retriedByTemporal", name)
				d, err := policies.DecideWait(policies.WaitInput{Err: f.err, Attempt: 1, Retry: policies.RetryConfig{}, Random: func() float64 { return 0.5 }})
				require.NoError(t, err, name)
				assert.Equal(t, !f.retryable, d.Final, "%s: DecideWait's Final", name)
				if f.retryable && row.Wait > 0 {
					assert.Equal(t, temporaladk.RetryDecision{Source: "fixed", Requested: row.Wait, Wait: row.Wait}, d, "%s: DecideWait's fixed wait", name)
				}
				var app *temporal.ApplicationError
				if errors.As(f.err, &app) {
					assert.Equal(t, !row.BeforeUserCode, charge.RanUserCode(f.err), "%s: charge.RanUserCode", name)
				}
			}
		})
	}
}

// The failures of an attempt whose charge could not be made take their
// retryability and wait from the error table through DecideWait.
func TestUnchargedErrorFollowsTheTable(t *testing.T) {
	failed := &temporaladk.ProviderError{StatusCode: 503}
	for cause, typ := range map[error]string{
		errors.New("no answer"):   temporaladk.TypeBudgetUnavailable,
		charge.ErrRunOutOfUpdates: temporaladk.TypeRunOutOfUpdates,
		charge.ErrBudgetClosed:    temporaladk.TypeBudgetClosed,
		charge.ErrModelUnpriced:   temporaladk.TypeModelUnpriced,
	} {
		row, ok := vocab.LookupErrorType(typ)
		require.True(t, ok, typ)
		var app *temporal.ApplicationError
		require.ErrorAs(t, unchargedError(cause, failed), &app)
		assert.Equal(t, typ, app.Type())
		assert.Equal(t, row.Retry != vocab.RetryYes, app.NonRetryable(), typ)
		assert.Equal(t, row.Wait, app.NextRetryDelay(), typ)
		// The attempt's failure crosses as every kit error does: typed, with
		// its fields, as the ApplicationError's cause.
		var cause *temporaladk.ProviderError
		require.ErrorAs(t, temporaladk.FromApplicationError(app), &cause, "%s keeps the attempt's failure as its cause", typ)
		assert.Equal(t, failed.StatusCode, cause.StatusCode, typ)
	}
}

// kitsOwn reports whether row is one of the failures the kit makes itself,
// whose type strings never had another name.
func kitsOwn(row vocab.ErrorType) bool { return row.Formerly == "" }

// raisers are the constructors of the kit's own failures (errors.go), one a
// type, each called as the kit calls it.
var raisers = map[string]func() error{
	temporaladk.TypeBadCallHeader: func() error { return badCallHeader("temporaladk: bad header") },
	temporaladk.TypeBudgetUnavailable: func() error {
		return budgetUnavailable("temporaladk: no answer", &temporaladk.ProviderError{StatusCode: 503})
	},
	temporaladk.TypeRunOutOfUpdates:    func() error { return runOutOfUpdates("temporaladk: no Updates left", nil) },
	temporaladk.TypeBudgetClosed:       func() error { return errRunHandedOver },
	temporaladk.TypeMisconfigured:      func() error { return misconfiguredCall("temporaladk: set up wrong") },
	temporaladk.TypeRetryRefused:       func() error { return retryRefused("temporaladk: one attempt") },
	temporaladk.TypeModelUnpriced:      func() error { return modelUnpriced("temporaladk: no price", errors.New("failed")) },
	temporaladk.TypeApprovalRejected:   func() error { return rejected("no such call") },
	temporaladk.TypeApprovalNotGranted: func() error { return notGranted("no grant for %s", "Book") },
}

// Every one of the kit's own failures is raised by its constructor
// (errors.go), and only there: no temporal.NewApplicationError... of
// interceptors, approvals or internal/charge names a type of the error table, by constant or
// by literal, and no other file builds one of their typed errors. Each
// constructor makes an ApplicationError of its type, non-retryable unless
// its row retries it, with its row's fixed wait, which FromApplicationError
// turns back into the typed error with the message.
func TestErrorTableRaisersAgree(t *testing.T) {
	table := map[string]vocab.ErrorType{}
	own := map[string]vocab.ErrorType{} // by Go error type
	for _, row := range vocab.ErrorTypes() {
		table[row.Type] = row
		if kitsOwn(row) {
			own[row.Error] = row
		}
	}
	consts := typeConstants(t, "../temporaladk")
	fset := token.NewFileSet()
	for _, dir := range []string{".", "../approvals", "../internal/charge"} {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if sel, ok := n.Type.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "temporaladk" {
							if row, ok := own["*temporaladk."+sel.Sel.Name]; ok && (dir != "." || e.Name() != "errors.go") {
								t.Errorf("%s: builds a %s outside its constructor: raise %s with the constructor in errors.go", fset.Position(n.Pos()), row.Error, row.Type)
							}
						}
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || len(n.Args) < 2 || !strings.HasPrefix(sel.Sel.Name, "New") || !strings.Contains(sel.Sel.Name, "ApplicationError") {
						return true
					}
					if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "temporal" {
						return true
					}
					var typ string
					switch arg := n.Args[1].(type) {
					case *ast.SelectorExpr:
						if x, ok := arg.X.(*ast.Ident); ok {
							typ = consts[x.Name+"."+arg.Sel.Name].value
						}
					case *ast.BasicLit:
						typ, _ = strconv.Unquote(arg.Value)
					}
					if _, ok := table[typ]; ok {
						t.Errorf("%s: raises %s as a bare ApplicationError: raise it with its typed error (the constructors in errors.go, or vocab.ToApplicationError)", fset.Position(n.Pos()), typ)
					}
				}
				return true
			})
		}
	}

	require.Len(t, raisers, len(own), "one constructor for each of the kit's own failures")
	for _, row := range own {
		t.Run(row.Type, func(t *testing.T) {
			raise, ok := raisers[row.Type]
			require.True(t, ok, "%s has no constructor here: add it to errors.go and here", row.Type)
			err := raise()
			var app *temporal.ApplicationError
			require.ErrorAs(t, err, &app)
			assert.Equal(t, row.Type, app.Type(), "the type string the server records")
			assert.Equal(t, row.Retry != vocab.RetryYes, app.NonRetryable(), "raised as its row says")
			assert.Equal(t, row.Wait, app.NextRetryDelay(), "with its row's wait")
			kit, ok := temporaladk.AsError(temporaladk.FromApplicationError(err))
			require.True(t, ok, "FromApplicationError rebuilds the typed error")
			assert.Equal(t, row.Error, fmt.Sprintf("%T", kit))
			assert.Equal(t, app.Message(), kit.Error(), "with the message the server records")
		})
	}
}

func TestUnchargedError(t *testing.T) {
	failed := errors.New("the attempt's own failure")
	tests := []struct {
		name      string
		cerr      error
		typ       string
		retryable bool
	}{
		{"out of Updates", fmt.Errorf("charging: %w (x)", charge.ErrRunOutOfUpdates), temporaladk.TypeRunOutOfUpdates, false},
		{"budget closed", fmt.Errorf("charging: %w (x)", charge.ErrBudgetClosed), temporaladk.TypeBudgetClosed, false},
		{"no answer", errors.New("charging: context deadline exceeded"), temporaladk.TypeBudgetUnavailable, true},
	}
	for _, tt := range tests {
		for _, withFailure := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, attempt failed %v", tt.name, withFailure), func(t *testing.T) {
				var f error
				if withFailure {
					f = failed
				}
				err := unchargedError(tt.cerr, f)
				var app *temporal.ApplicationError
				require.ErrorAs(t, err, &app)
				assert.Equal(t, tt.typ, app.Type())
				assert.Equal(t, !tt.retryable, app.NonRetryable())
				assert.Equal(t, tt.cerr.Error(), app.Message(), "the charge's error is the message")
				if withFailure {
					assert.ErrorIs(t, err, failed, "the attempt's own failure is the cause")
				} else {
					assert.Nil(t, errors.Unwrap(err), "an attempt that did not run has no failure to keep")
				}
			})
		}
	}
}
