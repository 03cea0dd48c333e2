package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

func TestUnitBadFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-turns", "0"}, "-turns is 0"},
		{[]string{"-tool-bytes", "-1"}, "-tool-bytes is -1"},
		{[]string{"-history-limit", "0"}, "-history-limit is 0"},
		{[]string{"-namespace", ""}, "-namespace is empty"},
	} {
		var stderr bytes.Buffer
		require.Equal(t, 2, run(tc.args, &bytes.Buffer{}, &stderr))
		require.Contains(t, stderr.String(), tc.want)
	}
}

// The sample passes turn 42 with real messages and 50 KB searches,
// continues as new by history bytes, and replays; the temporary store it
// made without -bucket, and the history it recorded, are gone at the end.
func TestSampleRunsPastTurn42(t *testing.T) {
	srv := testsuite.DevServerFor(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out, stderr bytes.Buffer
	code := run([]string{"-address", srv.Address(), "-namespace", srv.Namespace(), "-turns", "60", "-history-limit", "65536"}, &out, &stderr)
	t.Log(out.String())
	require.Equal(t, 0, code, stderr.String())
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the temporary store and history are removed when the run succeeds")
	require.Contains(t, out.String(), "60 turns, 182 messages")
	require.NotContains(t, out.String(), "in 1 runs")
	require.Contains(t, out.String(), "the last run's history replays with the store")
	require.True(t, strings.Contains(out.String(), "(limit 65536)"))
}
