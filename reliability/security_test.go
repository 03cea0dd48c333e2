package reliability_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/temporaladk/adk-go/internal/idemkey"
)

// The secrets of the security test: a sentence of the prompt and a card
// number, spelled as the user gave it and without spaces.
const (
	promptMarker = "the quartermaster hides the amber lantern at dawn"
	cardNumber   = "4111 1111 1111 1111"
)

var secrets = []string{promptMarker, cardNumber, strings.ReplaceAll(cardNumber, " ", "")}

// allowedPaths are the only history fields where an argument value may
// appear: the workflow's and the activities' inputs. Temporal stores those by
// design (a worker needs them to run the call); the kit's promise is about
// everything it writes itself.
var allowedPaths = map[string]bool{
	"workflow_execution_started_event_attributes.input.payloads.data": true,
	"activity_task_scheduled_event_attributes.input.payloads.data":    true,
}

// TestSecretsStayOutOfHeartbeatsAndErrors runs an agent-like workflow on the
// server: a MODEL call whose prompt holds a marker sentence, streaming with
// heartbeats, timing out once (its timeout carries the last heartbeat) and
// failing once against a provider that echoes the prompt in its 503 body;
// then an effectful payment tool whose argument holds a card number, failing
// once against a provider that echoes the card in its 502 body, called for
// two tenants, under a RunBudget. The retries are the server's: each call's
// last attempt's started event holds the failure before it, and the model
// call's retry reads the timed-out attempt's last heartbeat as the server
// kept it, which is logged and scanned too.
//
// The whole history is then walked, every string and bytes field of every
// event, with payload bytes read as they are (JSON), which is stricter than
// grepping the protojson rendering, where payload bytes are base64. Neither
// secret may appear anywhere but in the workflow's and the activities'
// input payloads: not in heartbeat details, failure messages, failure
// details, headers, summaries or results.
func TestSecretsStayOutOfHeartbeatsAndErrors(t *testing.T) {
	t.Parallel()
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		status := http.StatusServiceUnavailable
		if strings.HasSuffix(r.URL.Path, "/payments") {
			status = http.StatusBadGateway
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":"upstream failed","request":%q}`, body) // a provider echoing what it was sent
	}))
	t.Cleanup(provider.Close)

	srv := startServer(t, "")
	queue := taskQueue(t)
	log := &eventLog{}
	startInProcessWorker(t, srv.Client(), queue, &Agent{emit: log.add, provider: provider.URL})

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req := AgentRequest{Prompt: "Summarise the log. " + promptMarker + ". Then book the refund.", Card: cardNumber, Amount: 4200}
	run, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: queue, TaskQueue: queue}, AgentWorkflow, req)
	require.NoError(t, err)
	var result AgentResult
	require.NoError(t, run.Get(ctx, &result))
	events := history(t, srv.Client(), run)

	found := map[string][]string{} // secret → event paths where it appears
	failures := 0
	for _, e := range events {
		walk(e.ProtoReflect(), "", func(path string, value []byte) {
			for _, s := range secrets {
				if bytes.Contains(value, []byte(s)) {
					found[s] = append(found[s], fmt.Sprintf("%s#%d:%s", e.GetEventType(), e.GetEventId(), path))
				}
			}
		})
		if f := failureOf(e); f != nil {
			failures++
		}
	}
	// The model call's first attempt timed out on its heartbeat; the server
	// delivered its last heartbeat to the retry, which logged the bytes.
	var heartbeats []Event
	for _, ev := range log.snapshot() {
		if ev.Kind == "started" && ev.HasHeartbeat {
			heartbeats = append(heartbeats, ev)
			for _, s := range secrets {
				if bytes.Contains(ev.HeartbeatRaw, []byte(s)) {
					found[s] = append(found[s], fmt.Sprintf("heartbeat delivered to attempt %d:details", ev.Attempt))
				}
			}
		}
	}

	// The check must be able to fail: the secrets are in the inputs, and
	// the history has the failures and heartbeats the check is about.
	for _, s := range secrets[:2] {
		require.NotEmpty(t, found[s], "the walk finds %q in the inputs", s)
	}
	require.NotEmpty(t, heartbeats, "the retry of a timed-out attempt reads its last heartbeat")
	assert.Positive(t, heartbeats[0].Tokens, "the heartbeat carries counts")
	assert.Equal(t, "generate", heartbeats[0].Step)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(heartbeats[0].HeartbeatRaw, &fields))
	assert.ElementsMatch(t, []string{"step", "tokens", "chunks", "time"}, slices.Collect(maps.Keys(fields)), "counts, never text")
	require.GreaterOrEqual(t, failures, 4, "the model's 503 and the three payments' 502s, recorded as each call's last failure")

	var leaks []string
	for s, paths := range found {
		for _, p := range paths {
			_, field, _ := strings.Cut(p, ":")
			if !allowedPaths[field] {
				leaks = append(leaks, fmt.Sprintf("%q in %s", s, p))
			}
		}
	}
	sort.Strings(leaks)
	assert.Empty(t, leaks, "argument values and model text appear only in inputs")

	// Idempotency keys are tenant-scoped: the same arguments give two keys
	// for two tenants, and the same key again for the first tenant.
	require.Len(t, result.Keys, 3)
	assert.NotEqual(t, result.Keys[0], result.Keys[1], "two tenants, two keys")
	assert.Equal(t, result.Keys[0], result.Keys[2], "one tenant, one key")
	for _, k := range result.Keys {
		assert.Len(t, k, 64, "a key is a SHA-256 in hex")
		assert.NotContains(t, k, "4111")
	}
	assertReplays(t, srv.Client(), run)
	figure(t, "events=%d failures=%d heartbeats read back by retries=%d secrets found in %d places, all inputs, leaks=%d",
		len(events), failures, len(heartbeats), len(found[promptMarker])+len(found[cardNumber]), len(leaks))
}

// TestKeysAreTenantScoped derives keys for the same call in two tenants, and
// in one tenant twice, spelled differently.
func TestKeysAreTenantScoped(t *testing.T) {
	t.Parallel()
	args := map[string]any{"card": cardNumber, "amount": 4200}
	respelled := map[string]any{"amount": 4200.0, "card": cardNumber}
	a, err := idemkey.Derive(idemkey.Scope{Tenant: "tenant-a", Run: "run-1", Tool: "Pay"}, args, []string{"card", "amount"})
	require.NoError(t, err)
	b, err := idemkey.Derive(idemkey.Scope{Tenant: "tenant-b", Run: "run-1", Tool: "Pay"}, args, []string{"card", "amount"})
	require.NoError(t, err)
	again, err := idemkey.Derive(idemkey.Scope{Tenant: "tenant-a", Run: "run-1", Tool: "Pay"}, respelled, []string{"card", "amount"})
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "keys never cross tenants")
	assert.Equal(t, a, again, "one call, one key, however it is spelled")
	// Neither the tenant nor the run can be left out.
	_, err = idemkey.Derive(idemkey.Scope{Run: "run-1", Tool: "Pay"}, args, nil)
	assert.ErrorContains(t, err, "Tenant is empty")
}

// failureOf returns the failure an activity event carries, if any.
func failureOf(e *historypb.HistoryEvent) *failurepb.Failure {
	// A retried activity's started event holds the attempt before's failure.
	if a := e.GetActivityTaskStartedEventAttributes(); a != nil && a.GetLastFailure() != nil {
		return a.GetLastFailure()
	}
	if a := e.GetActivityTaskFailedEventAttributes(); a != nil {
		return a.GetFailure()
	}
	if a := e.GetActivityTaskTimedOutEventAttributes(); a != nil {
		return a.GetFailure()
	}
	return nil
}

// walk calls visit with the path (field names joined by '.', without list
// indexes) and the value of every string and bytes field of m, at any
// depth, map keys included.
func walk(m protoreflect.Message, path string, visit func(path string, value []byte)) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := string(fd.Name())
		if path != "" {
			p = path + "." + p
		}
		switch {
		case fd.IsList():
			list := v.List()
			for i := 0; i < list.Len(); i++ {
				walkValue(fd, list.Get(i), p, visit)
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				visit(p+".key", []byte(k.String()))
				walkValue(fd.MapValue(), mv, p, visit)
				return true
			})
		default:
			walkValue(fd, v, p, visit)
		}
		return true
	})
}

func walkValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string, visit func(string, []byte)) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		walk(v.Message(), path, visit)
	case protoreflect.StringKind:
		visit(path, []byte(v.String()))
	case protoreflect.BytesKind:
		visit(path, v.Bytes())
	}
}
