package devserver

import (
	"fmt"
	"net"
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
		l.Close()
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
		l.Close()
		if !handedOut[free] {
			handedOut[free] = true
			return free, nil
		}
	}
	return 0, fmt.Errorf("devserver: no new free port for %s after 20 tries", field)
}
