package testsuite_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdktestsuite "go.temporal.io/sdk/testsuite"

	"github.com/temporaladk/adk-go/internal/devserver"
	"github.com/temporaladk/adk-go/testsuite"
)

// The README tells users to pass FastDevServerArgs to a server they start
// themselves, for example the SDK's: the CLI must accept them there too.
func TestFastDevServerArgsStartTheSDKsDevServer(t *testing.T) {
	t.Parallel()
	// The same CLI the kit's server runs, so the test needs no download.
	require.NotNil(t, testsuite.DevServerFor(t), "the shared server finds or builds the CLI")
	path, err := devserver.Locate("", devserver.SystemEnvironment(), devserver.IsExecutable)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var output syncBuffer
	s, err := sdktestsuite.StartDevServer(ctx, sdktestsuite.DevServerOptions{
		ExistingPath: path,
		ExtraArgs:    testsuite.FastDevServerArgs(),
		Stdout:       &output,
		Stderr:       &output,
	})
	require.NoError(t, err, "server output:\n%s", output.String())
	t.Cleanup(func() { _ = s.Stop() })
	_, err = s.Client().CheckHealth(ctx, &client.CheckHealthRequest{})
	require.NoError(t, err)
}
