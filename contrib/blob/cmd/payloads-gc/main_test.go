package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/payloads"
	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// The command reads the namespace's runs and keeps what they reference.
func TestCommandKeepsWhatRunsReference(t *testing.T) {
	ctx := context.Background()
	srv := testsuite.DevServerFor(t)
	dir := t.TempDir()
	b, err := payloads.NewDirBucket(dir)
	require.NoError(t, err)
	store, err := payloads.NewStore(payloads.Options{Bucket: b})
	require.NoError(t, err)
	opts, err := store.ClientOptions(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace()})
	require.NoError(t, err)
	c, err := client.Dial(opts)
	require.NoError(t, err)
	defer c.Close()
	// A run that references a stored input: started, never picked up.
	_, err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "nobody-" + t.Name(), ID: "gc-cmd-" + t.Name()}, "Anything", strings.Repeat("held. ", 5000))
	require.NoError(t, err)
	// An object nothing references.
	_, err = store.Put(ctx, []byte(strings.Repeat("garbage. ", 5000)))
	require.NoError(t, err)

	var out bytes.Buffer
	err = run(ctx, []string{"-address", srv.Address(), "-namespace", srv.Namespace(), "-bucket", "file://" + dir, "-grace", "1m"}, &out)
	require.ErrorContains(t, err, "Grace")
	require.ErrorContains(t, run(ctx, []string{"-address", srv.Address()}, &out), "-bucket is required")

	for { // until visibility lists the run
		out.Reset()
		require.NoError(t, run(ctx, []string{"-address", srv.Address(), "-namespace", srv.Namespace(), "-bucket", "file://" + dir, "-grace", "20m", "-dry-run"}, &out))
		if !strings.HasPrefix(out.String(), "0 stored payloads") {
			break
		}
	}
	t.Log(out.String())
	require.Contains(t, out.String(), "1 stored payloads and 0 conversation logs referenced; live 2 objects")
	// Within the grace nothing goes, however unreferenced.
	require.Contains(t, out.String(), "would delete 0 objects")
}
