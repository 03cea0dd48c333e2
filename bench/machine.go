package main

import (
	"bufio"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/temporaladk/adk-go/internal/devserver"
)

// machine is what the figures were measured on.
type machine struct {
	CPUs       int
	CPUModel   string
	OS         string
	Go         string
	SDK        string
	CLI        string
	LoadBefore string
}

func describeMachine() (machine, error) {
	m := machine{
		CPUs:     runtime.NumCPU(),
		CPUModel: cpuModel(),
		OS:       runtime.GOOS + "/" + runtime.GOARCH,
		Go:       runtime.Version(),
		SDK:      "unknown",
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "go.temporal.io/sdk" {
				m.SDK = dep.Version
			}
		}
	}
	cli, err := devserver.Locate("", devserver.SystemEnvironment(), devserver.IsExecutable)
	if err != nil {
		return m, fmt.Errorf("the Temporal CLI (run `go test ./testsuite` once to build it): %w", err)
	}
	out, err := exec.Command(cli, "--version").Output()
	if err != nil {
		return m, fmt.Errorf("%s --version: %w", cli, err)
	}
	m.CLI = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "temporal version "))
	// A CLI built with go install reports no release version; its module does.
	if info, err := buildinfo.ReadFile(cli); err == nil && info.Main.Path != "" {
		m.CLI += ", built from " + info.Main.Path + " " + info.Main.Version
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadBefore = strings.Join(strings.Fields(string(load))[:3], " ")
	}
	return m, nil
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
