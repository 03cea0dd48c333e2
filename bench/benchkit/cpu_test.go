package benchkit

import (
	"testing"
	"time"
)

func TestParseProcStatCPU(t *testing.T) {
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
	line := "4242 (temporal server) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 30 0 1234 0 0\n"
	got, err := parseProcStatCPU(line)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2870 * time.Millisecond; got != want {
		t.Errorf("parseProcStatCPU = %v, want %v (287 ticks)", got, want)
	}
	for _, bad := range []string{"", "12 no parentheses", "1 (x) S 1 2", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 nan 3"} {
		if _, err := parseProcStatCPU(bad); err == nil {
			t.Errorf("parseProcStatCPU(%q) gave no error", bad)
		}
	}
}

func TestNewCPUMeter(t *testing.T) {
	if _, err := NewCPUMeter(0); err == nil {
		t.Error("NewCPUMeter(0) gave no error")
	}
}
