package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/approvals"
)

func main() {
	os.Exit(run(os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, now: time.Now(), random: rand.Reader}))
}

// env is what a run reads and writes besides its flags: the clock and the
// randomness are arguments, so that a test gives its own.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	now            time.Time
	random         io.Reader
}

// defaultValid is how long a decision stays valid when -valid is not given:
// long enough to paste the command, short enough that a stray copy expires.
const defaultValid = 10 * time.Minute

// flagError is a bad command line: the run exits 2.
type flagError struct{ msg string }

func (e flagError) Error() string { return e.msg }

// run runs the command and returns its exit status: 0, 1 for a decision it
// could not sign, 2 for bad flags.
func run(args []string, e env) int {
	err := decide(args, e)
	var bad flagError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &bad):
		if bad.msg != "" { // else the flag package has said it, with the usage
			fmt.Fprintf(e.stderr, "decide: %s (decide -h lists the flags)\n", bad.msg)
		}
		return 2
	default:
		fmt.Fprintf(e.stderr, "decide: %v\n", err)
		return 1
	}
}

// options are the command's flags.
type options struct {
	key, keyID, by, call, reason, pending    string
	approve, deny, genkey, pubkey, inputOnly bool
	valid                                    time.Duration
}

// decide parses args and does what they ask: print a key's public key
// (-genkey, -pubkey) or sign a decision.
func decide(args []string, e env) error {
	var o options
	fs := flag.NewFlagSet("decide", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&o.key, "key", "", "the file of the operator's ed25519 private key, PEM PKCS#8 (required)")
	fs.StringVar(&o.keyID, "key-id", "", "the key's ID, as the worker's verifier names it (approvals.PublicKey.ID)")
	fs.StringVar(&o.by, "by", "", "the principal who decides, whose key -key is (approvals.PublicKey.Principal)")
	fs.StringVar(&o.call, "call", "", "the call to decide, as the Query lists it: approval-N")
	fs.BoolVar(&o.approve, "approve", false, "approve the call")
	fs.BoolVar(&o.deny, "deny", false, "deny the call")
	fs.StringVar(&o.reason, "reason", "", "why; a denial carries it to the workflow")
	fs.DurationVar(&o.valid, "valid", defaultValid, "how long the signed decision stays valid, in the workflow's time")
	fs.StringVar(&o.pending, "pending", "-", "the file of the answer of 'temporal workflow query --name "+approvals.QueryName+" --output json'; - for stdin")
	fs.BoolVar(&o.inputOnly, "input-only", false, "print the Update's --input JSON alone, not the whole temporal command")
	fs.BoolVar(&o.genkey, "genkey", false, "write a new key to the file -key names (mode 0600, never over a file) and print its public key")
	fs.BoolVar(&o.pubkey, "pubkey", false, "print the public key of -key, PEM PKIX, for the worker's verifier")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage:\n  %s | decide -key FILE -key-id ID -by PRINCIPAL -call approval-N (-approve | -deny) [-reason TEXT] [-valid 10m] [-input-only]\n  decide -genkey -key FILE\n  decide -pubkey -key FILE\nflags:\n", queryCommand)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return flagError{}
	}
	if fs.NArg() > 0 {
		return flagError{fmt.Sprintf("unexpected argument %q: every input is a flag", fs.Arg(0))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.key == "" {
		return flagError{"-key is required: the file of the operator's ed25519 private key"}
	}
	if o.genkey || o.pubkey {
		return keyCommand(o, set, e)
	}
	if err := o.checkDecision(); err != nil {
		return err
	}
	return signDecision(o, e)
}

// keyCommand writes a new key (-genkey) or reads one (-pubkey) and prints
// its public key.
func keyCommand(o options, set map[string]bool, e env) error {
	if o.genkey && o.pubkey {
		return flagError{"-genkey and -pubkey: give one (-genkey prints the new key's public key too)"}
	}
	mode := "-genkey"
	if o.pubkey {
		mode = "-pubkey"
	}
	for _, name := range []string{"key-id", "by", "call", "approve", "deny", "reason", "valid", "pending", "input-only"} {
		if set[name] {
			return flagError{fmt.Sprintf("-%s with %s: %s handles a key and decides nothing", name, mode, mode)}
		}
	}
	var pub []byte
	if o.genkey {
		k, err := writeNewKey(o.key, e.random)
		if err != nil {
			return err
		}
		if pub, err = publicPEM(k); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "decide: wrote a new ed25519 key to %s (mode 0600); its public key, for the worker's verifier, is on stdout\n", o.key)
	} else {
		k, err := readKey(o.key)
		if err != nil {
			return err
		}
		if pub, err = publicPEM(k.Public().(ed25519.PublicKey)); err != nil {
			return err
		}
	}
	_, err := e.stdout.Write(pub)
	return err
}

// checkDecision checks the flags of a decision, naming the first bad one.
func (o options) checkDecision() error {
	for _, f := range []struct{ name, value, what string }{
		{"key-id", o.keyID, "the key's ID, as the worker's verifier names it"},
		{"by", o.by, "the principal who decides"},
		{"call", o.call, "the call to decide, approval-N, as the Query lists it"},
	} {
		switch {
		case f.value == "":
			return flagError{fmt.Sprintf("-%s is required: %s", f.name, f.what)}
		case strings.TrimSpace(f.value) != f.value:
			return flagError{fmt.Sprintf("-%s is %q: surrounding spaces would never match", f.name, f.value)}
		}
	}
	switch {
	case o.approve == o.deny:
		return flagError{"say -approve or -deny, one of them: a decision says which in so many words"}
	case o.valid <= 0:
		return flagError{fmt.Sprintf("-valid is %v: a signed decision must be valid for a while, and expire", o.valid)}
	case o.pending == "":
		return flagError{"-pending is empty: name the file of the Query's answer, or - for stdin"}
	}
	return nil
}

// signDecision signs the decision the flags give on the call the Query's
// answer lists, and prints what it signs (stderr) and the command that
// sends it (stdout).
func signDecision(o options, e env) error {
	key, err := readKey(o.key)
	if err != nil {
		return err
	}
	signer, err := approvals.NewSigner(o.keyID, o.by, key)
	clear(key)
	if err != nil {
		return err
	}
	answer, err := readPending(o.pending, e.stdin)
	if err != nil {
		return err
	}
	listed, err := parsePending(answer)
	if err != nil {
		return fmt.Errorf("%s: %w", pendingName(o.pending), err)
	}
	p, err := choose(listed, o.call, o.by)
	if err != nil {
		return err
	}
	expires := e.now.Add(o.valid)
	var req approvals.Request
	if o.approve {
		req, err = signer.Approve(p, o.reason, expires)
	} else {
		req, err = signer.Deny(p, o.reason, expires)
	}
	if err != nil {
		return err
	}
	input, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encoding the decision: %w", err)
	}
	describe(e.stderr, p, req, o.keyID, o.valid)
	if o.inputOnly {
		_, err = fmt.Fprintf(e.stdout, "%s\n", input)
		return err
	}
	_, err = fmt.Fprintln(e.stdout, commandLine(p, input))
	return err
}

func readPending(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
		return b, nil
	}
	return os.ReadFile(path)
}

func pendingName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// queryCommand is the command whose answer decide reads.
const queryCommand = "temporal workflow query --workflow-id <id> --name " + approvals.QueryName + " --output json"

// parsePending returns the calls a Query's answer lists: the JSON the
// Temporal CLI prints with --output json ({"queryResult": [[...]]}), or the
// list alone ([...]).
func parsePending(answer []byte) ([]approvals.Pending, error) {
	answer = bytes.TrimSpace(answer)
	if len(answer) == 0 {
		return nil, fmt.Errorf("no input: pipe in the answer of `%s`", queryCommand)
	}
	list := json.RawMessage(answer)
	if answer[0] != '[' {
		var cli struct {
			QueryResult []json.RawMessage `json:"queryResult"`
		}
		if err := json.Unmarshal(answer, &cli); err != nil || cli.QueryResult == nil {
			return nil, fmt.Errorf("not the answer of `%s` (its JSON has no queryResult; without --output json the CLI prints text)", queryCommand)
		}
		if len(cli.QueryResult) != 1 {
			return nil, fmt.Errorf("the answer's queryResult holds %d values: the Query %s answers one list", len(cli.QueryResult), approvals.QueryName)
		}
		list = cli.QueryResult[0]
	}
	var listed []approvals.Pending
	if err := json.Unmarshal(list, &listed); err != nil {
		return nil, fmt.Errorf("the answer is not the Query %s's list of pending calls: %w", approvals.QueryName, err)
	}
	return listed, nil
}

// choose returns the call named call among listed, once it has checked that
// by may sign a decision on it: its arguments have its digest (what the
// person reads is what the decision releases), its approvers are not open
// and name by, and by has not approved it already.
func choose(listed []approvals.Pending, call, by string) (approvals.Pending, error) {
	i := slices.IndexFunc(listed, func(p approvals.Pending) bool { return p.Call == call })
	if i < 0 {
		if len(listed) == 0 {
			return approvals.Pending{}, fmt.Errorf("-call %s: the Query lists no call waiting for approval", call)
		}
		var names []string
		for _, p := range listed {
			names = append(names, p.Call+" ("+p.ActivityType+")")
		}
		return approvals.Pending{}, fmt.Errorf("-call %s: the Query lists no such call; it lists %s", call, strings.Join(names, ", "))
	}
	p := listed[i]
	d, err := approvals.Digest(p.Args...)
	switch {
	case p.WorkflowID == "" || p.RunID == "" || p.Chain == "":
		return p, fmt.Errorf("call %s is listed without its workflow_id, run_id or chain, which a signed decision covers", call)
	case err != nil || d != p.Digest:
		return p, fmt.Errorf("call %s: its listed arguments have digest %s, not the listed %s (%v): what you read is not what the decision would release, so decide signs nothing", call, d, p.Digest, err)
	case p.Approvers.Open:
		return p, fmt.Errorf("call %s has open approvers: it takes an unsigned decision (README's open-mode commands), which a signature would not make any safer", call)
	case !p.Approvers.Allows(by):
		return p, fmt.Errorf("-by %s may not decide call %s: its approvers are %d of %q", by, call, p.Approvers.Required, p.Approvers.Principals)
	case slices.Contains(p.Approvals, by):
		return p, fmt.Errorf("-by %s approved call %s already: its approvers are %d of %q, and %q approved so far", by, call, p.Approvers.Required, p.Approvers.Principals, p.Approvals)
	}
	return p, nil
}

// describe writes what the person signs: what the run would do, with what,
// and until when the decision holds.
func describe(w io.Writer, p approvals.Pending, req approvals.Request, keyID string, valid time.Duration) {
	verb := "DENY"
	if req.Approves() {
		verb = "APPROVE"
	}
	args, err := json.Marshal(p.Args)
	if err != nil {
		args = []byte(fmt.Sprint(p.Args))
	}
	so := "none"
	if len(p.Approvals) > 0 {
		so = strings.Join(p.Approvals, ", ")
	}
	fmt.Fprintf(w, "decide: %s signs with key %s: %s call %s of workflow %s, run %s\n", req.By, keyID, verb, p.Call, p.WorkflowID, p.RunID)
	fmt.Fprintf(w, "  activity:  %s (%s)\n", p.ActivityType, p.Summary)
	fmt.Fprintf(w, "  arguments: %s\n", args)
	fmt.Fprintf(w, "  approvers: %d of %q; approved so far: %s\n", p.Approvers.Required, p.Approvers.Principals, so)
	if req.Reason != "" {
		fmt.Fprintf(w, "  reason:    %s\n", req.Reason)
	}
	fmt.Fprintf(w, "  valid for %v, until %s; undecided, the call is denied at %s\n", valid, req.Expires.Format(time.RFC3339), p.Deadline.UTC().Format(time.RFC3339))
}

// commandLine is the Temporal CLI command that sends input, the decision,
// to the run p waits in, each argument quoted for a POSIX shell.
func commandLine(p approvals.Pending, input []byte) string {
	return strings.Join([]string{"temporal workflow update execute",
		"--workflow-id", shellQuote(p.WorkflowID), "--run-id", shellQuote(p.RunID),
		"--name", shellQuote(approvals.UpdateName), "--input", shellQuote(string(input))}, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// shellQuote returns s as one word of a POSIX shell: as it is when it has
// nothing the shell reads, else in single quotes, each ' written '\”.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
