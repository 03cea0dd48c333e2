package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// fixingEnv marks the child run that applies the fixes, so that it goes to singlechecker
// instead of starting the two runs again.
const fixingEnv = "WORKFLOWGUARD_APPLYING_FIXES"

// fixRun reports whether args ask for -fix, and returns them as given and without the -fix flag.
// singlechecker applies the fixes and exits 0 without printing the findings it could not fix
// (golang.org/x/tools go/analysis/internal/checker), which told a user that all was well.
func fixRun(args []string) (fixArgs, rest []string, ok bool) {
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "fix", "fix=true", "fix=1", "fix=t", "fix=T", "fix=TRUE", "fix=True":
			if strings.HasPrefix(a, "-") {
				ok = true
				continue
			}
		}
		rest = append(rest, a)
	}
	return args, rest, ok
}

// fixThenCheck applies the fixes in one run of this command and then checks the packages again
// without -fix, printing what remains. Its status is the second run's (3 while findings remain,
// 0 when clean), or 1 when applying the fixes failed.
func fixThenCheck(fixArgs, rest []string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "workflowguard: %v\n", err)
		return 1
	}
	run := func(args []string, env ...string) int {
		cmd := exec.Command(self, args...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		cmd.Env = append(os.Environ(), env...)
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			fmt.Fprintf(stderr, "workflowguard: %v\n", err)
			return 1
		}
		return 0
	}
	if code := run(fixArgs, fixingEnv+"=1"); code != 0 {
		return code
	}
	return run(rest)
}
