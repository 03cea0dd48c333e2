// Package osfs reads the process environment and the file system in workflow code.
package osfs

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"

	"go.temporal.io/sdk/workflow"
)

var root = os.DirFS("/etc")

var assets = fstest.MapFS{"a": &fstest.MapFile{Data: []byte("a")}}

var embedded embed.FS

func EnvWorkflow(ctx workflow.Context) error { // want EnvWorkflow:`^reaches\(ADK-W004 osfs\.EnvWorkflow → os\.Getenv\)$`
	_ = os.Getenv("MODE")              // want `^ADK-W004 network, process, environment or file I/O on the workflow path \(os.Getenv\); read it in an activity, or record it once with workflow.SideEffect or MutableSideEffect`
	_, _ = os.LookupEnv("MODE")        // want `\(os.LookupEnv\)`
	_, _ = os.Hostname()               // want `\(os.Hostname\)`
	_, _ = os.ReadFile("config.json")  // want `\(os.ReadFile\)`
	f, _ := os.Open("config.json")     // want `\(os.Open\)`
	_, _ = f.Read(nil)                 // want `\(\(\*os.File\).Read\)`
	_, _ = fs.ReadFile(root, "passwd") // want `\(io/fs.ReadFile on os.DirFS\)`
	_ = filepath.Walk(".", nil)        // want `\(path/filepath.Walk\)`
	_, _ = fs.ReadFile(assets, "a")    // an in-memory file system
	_, _ = embedded.ReadFile("a")      // embedded at build time
	_, _ = fs.ReadFile(embedded, "a")  // embedded at build time
	_ = filepath.Join("a", "b")        // path arithmetic
	_ = os.IsNotExist(nil)             // error inspection
	_ = f.Name()                       // the name it was opened with
	mode := workflow.SideEffect(ctx, func(ctx workflow.Context) any { return os.Getenv("MODE") })
	_ = mode
	_ = workflow.ExecuteActivity(ctx, ReadConfig)
	return nil
}

// ReadConfig is an activity: reading files is its job.
func ReadConfig(ctx context.Context) ([]byte, error) { // want ReadConfig:`reaches\(ADK-W004 osfs.ReadConfig → os.ReadFile\)`
	return os.ReadFile("config.json")
}
