package devserver

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inTimeWait reports whether a TCP socket on 127.0.0.1 whose local port is
// port is in TIME_WAIT, as /proc/net/tcp lists it (state 06).
func inTimeWait(t *testing.T, port int) bool {
	t.Helper()
	f, err := os.Open("/proc/net/tcp")
	require.NoError(t, err)
	defer f.Close()
	local := fmt.Sprintf("0100007F:%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 3 && fields[1] == local && fields[3] == "06" {
			return true
		}
	}
	require.NoError(t, sc.Err())
	return false
}

// A port chosen for a server, and a port a restart binds again, waits in
// TIME_WAIT, where no bind to port 0 is handed it, and the server's own
// bind to it succeeds.
func TestAChosenPortIsHeldForTheServer(t *testing.T) {
	port, err := choosePort(0, "Port")
	require.NoError(t, err)
	assert.True(t, inTimeWait(t, port), "the chosen port %d is held in TIME_WAIT", port)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	require.NoError(t, err, "the server binds the port it was given")
	require.NoError(t, l.Close())

	// A port a server had, closed with no connection, is not held until
	// the restart chooses it again.
	l, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	had := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	require.False(t, inTimeWait(t, had), "port %d is held before the restart holds it", had)
	_, err = choosePort(had, "Port")
	require.NoError(t, err)
	assert.True(t, inTimeWait(t, had), "the restart holds port %d in TIME_WAIT", had)
	l, err = net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(had)))
	require.NoError(t, err, "the restarted server binds its port")
	require.NoError(t, l.Close())
}
