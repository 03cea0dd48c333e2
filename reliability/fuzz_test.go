package reliability_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/temporaladk/adk-go/internal/idemkey"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/policies"
	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// The fuzz targets of what the kit's own packages do not fuzz yet (they
// fuzz policy construction, Canonicalize and ParseRetryAfter): HTTP
// classification with its Retry-After and retry-after-ms headers, key derivation with key
// fields and tenants, tool declarations, and class and idempotency names.
// History loading is fuzzed in internal/history and testsuite. fuzz.sh runs
// them all.

// FuzzClassifyHTTP feeds any status, Retry-After and retry-after-ms header,
// body and transport error to providers.ClassifyHTTP: no panic, the classification follows the status,
// a wait is never negative, and no part of the body reaches the error.
func FuzzClassifyHTTP(f *testing.F) {
	refTime := testclock.Epoch(f)
	f.Add(429, "120", []byte(`{"error":"quota exceeded"}`), uint8(0))
	f.Add(529, "1500.5", []byte(nil), uint8(0))
	f.Add(503, "Wed, 21 Oct 2015 07:28:00 GMT", []byte("the prompt echoed back"), uint8(0))
	f.Add(200, "", []byte(nil), uint8(0))
	f.Add(-1, "-1", []byte("x"), uint8(1))
	f.Add(999, "99999999999999999999", bytes.Repeat([]byte("card 4111 1111 1111 1111 "), 300), uint8(2))
	f.Add(0, "", []byte(nil), uint8(3))
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte, errKind uint8) {
		var transport error
		switch errKind % 5 {
		case 1:
			transport = io.ErrUnexpectedEOF
		case 2:
			transport = os.ErrDeadlineExceeded
		case 3:
			transport = errors.New(string(body))
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {retryAfter}, "Retry-After-Ms": {retryAfter}}, Body: io.NopCloser(bytes.NewReader(body))}
		if errKind%5 == 4 {
			resp = nil
		}
		err := providers.ClassifyHTTP("stand-in", resp, transport, refTime)
		if transport != nil {
			if err == nil {
				t.Fatal("a transport error classified as success")
			}
			return
		}
		if resp == nil {
			if err == nil {
				t.Fatal("no response and no error classified as success")
			}
			return
		}
		if status < 400 {
			if err != nil {
				t.Fatalf("status %d classified as %v", status, err)
			}
			return
		}
		kit, ok := temporaladk.AsError(err)
		if !ok {
			t.Fatalf("status %d gave %T, not a kit error", status, err)
		}
		if status == http.StatusTooManyRequests {
			if kit.Type() != temporaladk.TypeRateLimit {
				t.Fatalf("429 gave %s", kit.Type())
			}
		} else if kit.Type() != temporaladk.TypeProvider || kit.Retryable() != providers.RetryableStatus(status) {
			t.Fatalf("status %d gave %s retryable=%v", status, kit.Type(), kit.Retryable())
		}
		if wait, asked := vocab.RetryAfterOf(err); asked && wait < 0 {
			t.Fatalf("negative Retry-After %v from %q", wait, retryAfter)
		}
		if len(body) >= 16 && bytes.Contains([]byte(err.Error()), body) {
			t.Fatalf("the body reached the error: %v", err)
		}
	})
}

// FuzzKeyTenantScope derives keys for any scope and document: two tenants
// never share a key, a key is a SHA-256 in hex and holds no argument value,
// and a key over key fields is the key over those fields alone.
func FuzzKeyTenantScope(f *testing.F) {
	f.Add("tenant-a", "tenant-b", "run-1", "Pay", `{"card":"4111 1111 1111 1111","amount":4200,"memo":"x"}`, "card,amount")
	f.Add("a", "a\x00", "r", "t", `{"a":{"b":1.50}}`, "a.b")
	f.Add("Cafe\u0301", "Caf\u00e9", "r", "t", `{}`, "")
	f.Add("", "b", "", "", `null`, "missing")
	f.Fuzz(func(t *testing.T, tenantA, tenantB, run, tool, doc, fields string) {
		if !json.Valid([]byte(doc)) {
			return
		}
		var keyFields []string
		if fields != "" {
			keyFields = strings.Split(fields, ",")
		}
		args := json.RawMessage(doc)
		a, errA := idemkey.Derive(idemkey.Scope{Tenant: tenantA, Run: run, Tool: tool}, args, keyFields)
		b, errB := idemkey.Derive(idemkey.Scope{Tenant: tenantB, Run: run, Tool: tool}, args, keyFields)
		if errA != nil || errB != nil {
			if (errA == nil) != (errB == nil) && tenantA != "" && tenantB != "" {
				t.Fatalf("the tenant changed whether a key exists: %v / %v", errA, errB)
			}
			return
		}
		if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
			t.Fatalf("key %q is not a SHA-256 in hex", a)
		}
		if (a == b) != (normNFC(tenantA) == normNFC(tenantB)) {
			t.Fatalf("tenants %q and %q: keys %s and %s", tenantA, tenantB, a, b)
		}
	})
}

// normNFC is the tenant as the key sees it: keys hash NFC-normalised
// strings, so two spellings of one tenant are one tenant.
func normNFC(s string) string { return norm.NFC.String(s) }

// FuzzDeclaration feeds any declaration to Declaration.Validate and
// PlanCall: no panic, and whatever validates plans a call with a valid
// policy and the attempts its idempotency allows.
func FuzzDeclaration(f *testing.F) {
	f.Add("Book", int64(time.Minute), uint8(3), "flight,passenger", true, uint8(1))
	f.Add("", int64(0), uint8(9), "", false, uint8(0))
	f.Add(" ", int64(-1), uint8(0), "a..b,,", true, uint8(2))
	f.Add("Refund", int64(1), uint8(1), "flight.number", true, uint8(0))
	f.Fuzz(func(t *testing.T, name string, timeout int64, idempotency uint8, fields string, withInput bool, class uint8) {
		var keyFields []string
		if fields != "" {
			keyFields = strings.Split(fields, ",")
		}
		decl := temporaladk.Declaration{
			Class: vocab.Classes()[int(class)%4], Timeout: time.Duration(timeout), Idempotency: temporaladk.Idempotency(idempotency), KeyFields: keyFields,
		}
		if withInput {
			decl.Input = bookingInput{}
		}
		if err := decl.Validate(name); err != nil {
			return
		}
		if c := decl.Clone(); len(keyFields) > 0 && &c.KeyFields[0] == &keyFields[0] {
			t.Fatal("the clone shares the caller's slice")
		}
		for _, hasKey := range []bool{false, true} {
			p, planned, err := policies.PlanCall(policies.Call{ActivityType: name, Declaration: &decl, HasKey: hasKey})
			if err != nil {
				// A timeout too short for a window is refused here: only the
				// plan knows the class's heartbeat.
				if timeout >= 2 {
					t.Fatalf("PlanCall refused a valid declaration: %v", err)
				}
				continue
			}
			if !planned {
				t.Fatal("a declaration with a class was not planned")
			}
			if err := p.Policy.Validate(); err != nil {
				t.Fatalf("the plan's policy does not validate: %v", err)
			}
			if decl.IsTool() && decl.Idempotency.TreatedAsEffectful() && !hasKey && p.Policy.Retry.MaxAttempts != 1 {
				t.Fatalf("an effectful tool without a key got %d attempts", p.Policy.Retry.MaxAttempts)
			}
		}
	})
}

// FuzzParseNames feeds any name to Class and Idempotency's UnmarshalText:
// no panic, empty text is the zero Class (no class), and any other name
// that parses names a valid value that parses back.
func FuzzParseNames(f *testing.F) {
	for _, seed := range []string{"model", "TOOL", "read-only", "READ_ONLY", "", "\x00", "ﬀ", "Undeclared", "retrieval "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if c, err := vocabtest.ParseClass(name); err == nil {
			if name == "" {
				if c != "" {
					t.Fatalf("empty text parsed as class %q", c)
				}
			} else if !c.Valid() {
				t.Fatalf("ParseClass(%q) = invalid %q", name, c)
			}
			if again, err := vocabtest.ParseClass(string(c)); c != "" && (err != nil || again != c) {
				t.Fatalf("class %q does not parse back", c)
			}
		}
		if i, err := vocabtest.ParseIdempotency(name); err == nil {
			if !i.Valid() {
				t.Fatalf("ParseIdempotency(%q) = invalid %v", name, i)
			}
			if again, err := vocabtest.ParseIdempotency(i.String()); err != nil || again != i {
				t.Fatalf("idempotency %v does not parse back", i)
			}
		}
	})
}

// TestReplayFileMalformedHistoryDoesNotPanic guards a fixed bug: history
// files that decode but are not histories the SDK's replayer can handle made
// ReplayFile panic with a nil pointer dereference instead of returning an
// error. The panics are the SDK's (go.temporal.io/sdk v1.51.0): in
// replayWorkflowHistoryRoot, `defer wfctx.Unlock(err)` runs on a nil wfctx
// when GetOrCreateWorkflowContext fails (the first file: a
// WorkflowExecutionStarted without a workflow ID, then a workflow task); and
// (*history).isNextWorkflowTaskFailed dereferences a missing event (the
// second file, found by FuzzHistoryFile). internal/history.Replay now
// recovers them and returns an error naming the history as malformed.
func TestReplayFileMalformedHistoryDoesNotPanic(t *testing.T) {
	t.Parallel()
	startedWithoutID := filepath.Join(t.TempDir(), "started-without-id.json")
	err := os.WriteFile(startedWithoutID, []byte(`{"events":[
		{"eventId":"1","eventType":"WorkflowExecutionStarted","workflowExecutionStartedEventAttributes":{"workflowType":{"name":"StreamWorkflow"}}},
		{"eventId":"2","eventType":"WorkflowTaskScheduled"},
		{"eventId":"3","eventType":"WorkflowTaskStarted"}]}`), 0o644)
	require.NoError(t, err)
	for _, path := range []string{startedWithoutID, filepath.Join("testdata", "replay-panic-history.json")} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			_, err, panicked := guarded(func() (any, error) {
				return nil, testsuite.ReplayFile(path, testsuite.ReplayOptions{Workflows: []testsuite.ReplayWorkflow{{Func: StreamWorkflow}}})
			})
			if panicked != "" {
				t.Fatalf("ReplayFile panicked on a malformed history instead of returning an error:\n%s", firstLines(panicked, 14))
			}
			assert.Error(t, err, "a malformed history replayed")
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
