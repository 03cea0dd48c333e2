package benchkit

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times:
// 100 on every architecture Go supports.
const clockTicks = 100

// CPUMeter reads the CPU time (user and system) spent so far by this
// process, where the workers run, and by the dev server's process. Unlike
// wall time it barely moves when other programs load the machine, so the
// kit's cost shows through the noise of a shared machine.
type CPUMeter struct {
	// ServerPID is the dev server's process id.
	ServerPID int
}

// NewCPUMeter returns a meter of this process and the server process pid,
// or an error when this system does not tell a process's CPU time (the
// server's is read from /proc, so Linux only).
func NewCPUMeter(serverPID int) (*CPUMeter, error) {
	if serverPID <= 0 {
		return nil, fmt.Errorf("benchkit: NewCPUMeter: server pid %d", serverPID)
	}
	m := &CPUMeter{ServerPID: serverPID}
	if _, _, err := m.Read(); err != nil {
		return nil, err
	}
	return m, nil
}

// Read returns the CPU time spent so far by this process and by the server.
func (m *CPUMeter) Read() (worker, server time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, fmt.Errorf("benchkit: getrusage: %w", err)
	}
	worker = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", m.ServerPID))
	if err != nil {
		return 0, 0, fmt.Errorf("benchkit: the server's CPU time: %w", err)
	}
	server, err = parseProcStatCPU(string(raw))
	return worker, server, err
}

// parseProcStatCPU returns utime+stime of a /proc/<pid>/stat line. The
// command name, in parentheses, may hold spaces, so fields are counted from
// the last ')': state is the first, utime the twelfth, stime the thirteenth.
func parseProcStatCPU(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("benchkit: /proc stat line without a command name: %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("benchkit: /proc stat line with %d fields after the command: %q", len(f), stat)
	}
	var ticks int64
	for _, s := range f[11:13] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("benchkit: /proc stat CPU field %q: %w", s, err)
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}
