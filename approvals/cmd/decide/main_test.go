package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/approvals"
	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/testsuite"
)

// TestMain shares one dev server among the tests that need one
// (cli_test.go); the others run under -short without it.
func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// testNow is the clock of the unit tests: the tests' epoch.
func testNow(tb testing.TB) time.Time {
	tb.Helper()
	return testclock.Epoch(tb)
}

// decideRun runs the command with stdin and args at testNow, and returns
// its stdout, its stderr and its exit status.
func decideRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return decideAt(t, testNow(t), stdin, args...)
}

// decideAt is decideRun at now.
func decideAt(t *testing.T, now time.Time, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, now: now, random: rand.Reader})
	return stdout.String(), stderr.String(), code
}

// writeKey writes a key derived from name to a file of t's and returns
// its path and the key.
func writeKey(t *testing.T, name string) (string, ed25519.PrivateKey) {
	t.Helper()
	seed := sha256.Sum256([]byte("decide test key " + name))
	key := ed25519.NewKeyFromSeed(seed[:])
	der, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name+".pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	return path, key
}

// listed is a call waiting for one of ana and bo, as the Query lists it.
func listed(t *testing.T) approvals.Pending {
	t.Helper()
	args := []any{map[string]any{"flight": "TP5", "seat": "5A"}}
	digest, err := approvals.Digest(args...)
	require.NoError(t, err)
	return approvals.Pending{WorkflowID: "trip-1", RunID: "run-2", Chain: "run-1", Call: "approval-1", ActivityType: "PaySeat",
		Class: "tool", Digest: digest, Summary: "tool PaySeat", Since: testNow(t).Add(-time.Minute), Deadline: testNow(t).Add(time.Hour),
		Args: args, Approvers: approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 1}}
}

// cliAnswer is the JSON `temporal workflow query --output json` prints for
// a Query that answers pending.
func cliAnswer(t *testing.T, pending ...approvals.Pending) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"queryType": approvals.QueryName, "queryResult": [][]approvals.Pending{pending}})
	require.NoError(t, err)
	return string(b)
}

// TestBadFlags: a bad command line exits 2 with a message that names the
// flag, and prints nothing on stdout.
func TestBadFlags(t *testing.T) {
	t.Parallel()
	key, _ := writeKey(t, "ana")
	decision := []string{"-key", key, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1"}
	with := func(extra ...string) []string { return append(append([]string{}, decision...), extra...) }
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no key", []string{"-key-id", "ana-key", "-by", "ana", "-call", "approval-1", "-approve"}, "-key is required"},
		{"no key ID", []string{"-key", key, "-by", "ana", "-call", "approval-1", "-approve"}, "-key-id is required"},
		{"no principal", []string{"-key", key, "-key-id", "ana-key", "-call", "approval-1", "-approve"}, "-by is required"},
		{"no call", []string{"-key", key, "-key-id", "ana-key", "-by", "ana", "-approve"}, "-call is required"},
		{"principal with spaces", []string{"-key", key, "-key-id", "ana-key", "-by", " ana", "-call", "approval-1", "-approve"}, `-by is " ana": surrounding spaces`},
		{"neither approve nor deny", with(), "say -approve or -deny, one of them"},
		{"both approve and deny", with("-approve", "-deny"), "say -approve or -deny, one of them"},
		{"valid zero", with("-approve", "-valid", "0s"), "-valid is 0s"},
		{"valid negative", with("-approve", "-valid", "-1m"), "-valid is -1m0s"},
		{"valid not a duration", with("-approve", "-valid", "soon"), `invalid value "soon" for flag -valid`},
		{"pending empty", with("-approve", "-pending", ""), "-pending is empty"},
		{"unknown flag", with("-approve", "-force"), "flag provided but not defined: -force"},
		{"an argument", with("-approve", "approval-2"), `unexpected argument "approval-2": every input is a flag`},
		{"genkey and a call", []string{"-genkey", "-key", key, "-call", "approval-1"}, "-call with -genkey: -genkey handles a key and decides nothing"},
		{"pubkey and approve", []string{"-pubkey", "-key", key, "-approve"}, "-approve with -pubkey"},
		{"genkey and pubkey", []string{"-genkey", "-pubkey", "-key", key}, "-genkey and -pubkey: give one"},
		{"genkey without key", []string{"-genkey"}, "-key is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := decideRun(t, cliAnswer(t, listed(t)), tc.args...)
			require.Equal(t, 2, code, stderr)
			require.Contains(t, stderr, tc.want)
			require.Empty(t, stdout)
		})
	}
}

// TestSignsTheListedCall: the command signs the statement of the call the
// Query lists, by the principal and key of its flags, approve or deny as
// said, valid for -valid from now; the printed input is the Update's
// argument, and the private key is printed nowhere.
func TestSignsTheListedCall(t *testing.T) {
	t.Parallel()
	path, key := writeKey(t, "ana")
	signer, err := approvals.NewSigner("ana-key", "ana", key)
	require.NoError(t, err)
	verifier, err := approvals.NewEd25519Verifier(signer.PublicKey())
	require.NoError(t, err)
	p := listed(t)
	other := p
	other.Call, other.Approvals = "approval-2", []string{"bo"}
	pemText, err := os.ReadFile(path)
	require.NoError(t, err)
	secrets := []string{string(pemText), strings.Split(string(pemText), "\n")[1], hex.EncodeToString(key.Seed()),
		base64.StdEncoding.EncodeToString(key.Seed()), base64.StdEncoding.EncodeToString(key)}

	for _, tc := range []struct {
		name    string
		stdin   string
		args    []string
		approve bool
		reason  string
		valid   time.Duration
	}{
		{"approve", cliAnswer(t, other, p), []string{"-approve", "-input-only"}, true, "", defaultValid},
		{"deny with a reason", cliAnswer(t, p, other), []string{"-deny", "-reason", "the fare doubled", "-input-only"}, false, "the fare doubled", defaultValid},
		{"the list alone, valid an hour", mustJSON(t, []approvals.Pending{p}), []string{"-approve", "-valid", "1h", "-input-only"}, true, "", time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-key", path, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1"}, tc.args...)
			stdout, stderr, code := decideRun(t, tc.stdin, args...)
			require.Zero(t, code, stderr)
			var req approvals.Request
			require.NoError(t, json.Unmarshal([]byte(stdout), &req), stdout)
			require.Equal(t, approvals.Decision{Call: "approval-1", Digest: p.Digest, By: "ana", Reason: tc.reason}, req.Decision)
			require.Equal(t, tc.approve, req.Approves())
			require.Equal(t, "ana-key", req.Key)
			require.True(t, req.Expires.Equal(testNow(t).Add(tc.valid)), "expires %v", req.Expires)
			require.NoError(t, verifier.Verify(p.Statement(tc.approve, "ana", req.Expires), req.Key, req.Signature))
			require.Error(t, verifier.Verify(p.Statement(!tc.approve, "ana", req.Expires), req.Key, req.Signature), "the signature covers the decision")
			require.Error(t, verifier.Verify(other.Statement(tc.approve, "ana", req.Expires), req.Key, req.Signature), "the signature covers the call")
			// What the person signs, on stderr: the run, the call and its arguments.
			for _, want := range []string{"ana signs with key ana-key", "call approval-1 of workflow trip-1, run run-2", "PaySeat (tool PaySeat)", `[{"flight":"TP5","seat":"5A"}]`, `1 of ["ana" "bo"]`} {
				require.Contains(t, stderr, want)
			}
			for _, s := range secrets {
				require.NotContains(t, stdout+stderr, s, "the private key is printed nowhere")
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestCommandLineQuotes: the printed command, run by a POSIX shell, passes
// the CLI exactly its arguments, whatever the reason holds.
func TestCommandLineQuotes(t *testing.T) {
	t.Parallel()
	// A temporal that prints its arguments, one a line.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "temporal"), []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755))
	path, _ := writeKey(t, "ana")
	p := listed(t)
	p.WorkflowID = "trip 1; rm -rf $HOME"
	reason := "don't book: `date` costs $HOME's \"fare\" \\ twice"
	stdout, stderr, code := decideRun(t, cliAnswer(t, p), "-key", path, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1", "-deny", "-reason", reason)
	require.Zero(t, code, stderr)
	require.True(t, strings.HasPrefix(stdout, "temporal workflow update execute --workflow-id "), stdout)
	input, _, _ := decideRun(t, cliAnswer(t, p), "-key", path, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1", "-deny", "-reason", reason, "-input-only")

	sh := exec.Command("sh", "-c", stdout)
	sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := sh.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, []string{"workflow", "update", "execute", "--workflow-id", p.WorkflowID, "--run-id", "run-2",
		"--name", approvals.UpdateName, "--input", strings.TrimSuffix(input, "\n")}, strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"))
	var req approvals.Request
	require.NoError(t, json.Unmarshal([]byte(input), &req))
	require.Equal(t, reason, req.Reason)
}

// TestRefusesToSign: a call the command cannot sign for exits 1, saying
// why, and prints nothing on stdout.
func TestRefusesToSign(t *testing.T) {
	t.Parallel()
	path, _ := writeKey(t, "ana")
	p := listed(t)
	change := func(f func(*approvals.Pending)) approvals.Pending {
		q := p
		f(&q)
		return q
	}
	for _, tc := range []struct {
		name  string
		stdin string
		by    string
		want  string
	}{
		{"a call not listed", cliAnswer(t, change(func(q *approvals.Pending) { q.Call = "approval-3" })), "ana",
			"-call approval-1: the Query lists no such call; it lists approval-3 (PaySeat)"},
		{"nothing waits", cliAnswer(t), "ana", "-call approval-1: the Query lists no call waiting for approval"},
		{"arguments that are not the digest's", cliAnswer(t, change(func(q *approvals.Pending) {
			q.Args = []any{map[string]any{"flight": "TP5", "seat": "5B"}}
		})), "ana", "what you read is not what the decision would release"},
		{"open approvers", cliAnswer(t, change(func(q *approvals.Pending) { q.Approvers = approvals.Approvers{Open: true, Required: 1} })), "ana",
			"call approval-1 has open approvers: it takes an unsigned decision"},
		{"a principal not among the approvers", cliAnswer(t, p), "eve", `-by eve may not decide call approval-1: its approvers are 1 of ["ana" "bo"]`},
		{"approved already", cliAnswer(t, change(func(q *approvals.Pending) {
			q.Approvers = approvals.Approvers{Principals: []string{"ana", "bo"}, Required: 2}
			q.Approvals = []string{"ana"}
		})), "ana", "-by ana approved call approval-1 already"},
		{"no run", cliAnswer(t, change(func(q *approvals.Pending) { q.RunID = "" })), "ana", "listed without its workflow_id, run_id or chain"},
		{"no input", "", "ana", "stdin: no input: pipe in the answer of `temporal workflow query"},
		{"the CLI's text output", "Query result:\n[...]", "ana", "stdin: not the answer of `temporal workflow query --workflow-id <id> --name temporaladk.approvals --output json`"},
		{"two answers", `{"queryResult":[[],[]]}`, "ana", "the answer's queryResult holds 2 values"},
		{"not a list", `{"queryResult":[{"call":"approval-1"}]}`, "ana", "the answer is not the Query temporaladk.approvals's list of pending calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := decideRun(t, tc.stdin, "-key", path, "-key-id", tc.by+"-key", "-by", tc.by, "-call", "approval-1", "-approve")
			require.Equal(t, 1, code, stderr)
			require.Contains(t, stderr, tc.want)
			require.Empty(t, stdout)
		})
	}

	// The answer can come from a file too.
	answer := filepath.Join(t.TempDir(), "pending.json")
	require.NoError(t, os.WriteFile(answer, []byte(cliAnswer(t, p)), 0o600))
	stdout, stderr, code := decideRun(t, "", "-key", path, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1", "-approve", "-pending", answer)
	require.Zero(t, code, stderr)
	require.Contains(t, stdout, "--name temporaladk.approve --input '{")
	_, stderr, code = decideRun(t, "", "-key", path, "-key-id", "ana-key", "-by", "ana", "-call", "approval-1", "-approve", "-pending", answer+".missing")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "pending.json.missing: no such file")
}
