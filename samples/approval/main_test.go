package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/testsuite"
)

func TestMain(m *testing.M) {
	os.Exit(testsuite.RunWithDevServer(m, testsuite.DevServerOptions{}))
}

// TestIntegrationTrip runs the sample end to end on the dev server: the
// first seat is approved and booked, the second denied and not booked.
func TestIntegrationTrip(t *testing.T) {
	srv := testsuite.SharedDevServer(t)
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-address", srv.Address(), "-namespace", srv.Namespace()}, &stdout, &stderr), stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "approval-1  tool BookSeat  digest ")
	assert.Contains(t, out, "ana approves approval-1")
	assert.Contains(t, out, "ana denies approval-2: one seat is enough")
	assert.Contains(t, out, "LH454/12A booked\n")
	assert.Contains(t, out, "LH454/12B not booked: approval denied: BookSeat approval-2 by ana: one seat is enough\n")
}

func TestUnitBadFlagsAreClearErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, `unknown command "extra"`},
		{[]string{"list"}, "list needs -address"},
		{[]string{"-address", "localhost:7233", "approve"}, "-workflow is empty"},
		{[]string{"run", "more"}, `unexpected argument "more"`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(tt.args, &stdout, &stderr), tt.args)
		assert.Contains(t, stderr.String(), tt.want, tt.args)
	}
}
