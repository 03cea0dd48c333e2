package benchkit

import (
	"os"
	"testing"
)

// The meter reads /proc: Linux only, by this file's name.
func TestNewCPUMeterReadsProc(t *testing.T) {
	m, err := NewCPUMeter(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	worker, server, err := m.Read()
	if err != nil {
		t.Fatal(err)
	}
	if worker <= 0 || server < 0 {
		t.Errorf("Read = %v, %v", worker, server)
	}
}
