package devserver

import (
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
)

// handedOut remembers the ports this process chose, so two servers started
// at the same moment do not get the same one.
var (
	handedOutMu sync.Mutex
	handedOut   = map[int]bool{}
)

// choosePort returns port if it is free on 127.0.0.1, or a free port when
// port is 0. field names the option in errors.
func choosePort(port int, field string) (int, error) {
	if port != 0 {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return 0, fmt.Errorf("devserver: %s %d is not free on 127.0.0.1: %w", field, port, err)
		}
		holdPort(l)
		return port, nil
	}
	handedOutMu.Lock()
	defer handedOutMu.Unlock()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("devserver: finding a free port for %s: %w", field, err)
		}
		free := l.Addr().(*net.TCPAddr).Port
		holdPort(l)
		if !handedOut[free] {
			handedOut[free] = true
			return free, nil
		}
	}
	return 0, fmt.Errorf("devserver: no new free port for %s after 20 tries", field)
}

// holdPort closes l, a listener on a port a server is about to bind, so
// that no other process's bind to port 0 is handed that port in the
// meantime. On Linux and the other systems that hand out ports at random
// (not macOS or Windows, which hand them out in turn), a port just closed
// can be handed out again at once: to another dev server choosing its
// ports, on a machine where many start. holdPort first connects to l and
// closes the accepted end, which leaves the port in TIME_WAIT for a minute:
// the kernel then hands it to no bind to port 0, while the server's own
// bind to it (with SO_REUSEADDR, as Go sets it) succeeds. The Temporal CLI
// chooses its own ports this way. If the connection cannot be made, l is
// only closed: the server's bind then finds the port as it is.
func holdPort(l net.Listener) {
	defer l.Close()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return
	}
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return
	}
	defer client.Close()
	if accepted, err := l.Accept(); err == nil {
		accepted.Close() // the accepting end closes first: its port waits
	}
}
