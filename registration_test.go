package readme

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// oldRegistrations are the ways a reader could once register the kit, which
// no longer exist or no longer work: interceptors.New, a kit's WorkerOptions
// method (kit.WorkerOptions(wopts)), and the kit or its plugin in
// worker.Options.Interceptors. The one path is interceptors.NewPlugin, in
// worker.Options.Plugins and the replayer's Plugins.
var oldRegistrations = regexp.MustCompile(`interceptors\.New\(|\.WorkerOptions\(|Interceptors:\s*\[\]interceptor\.WorkerInterceptor\{[^}]*\b(kit|plugin|interceptors\.)`)

// TestDocsRegisterTheKitOnePath reads what a newcomer copies from (every
// Markdown file, README.md and those of samples/ and docs/ among them, every
// package doc, doc.go, and every example_test.go, in every module of the
// repository) and fails on any line that registers the kit another way than
// interceptors.NewPlugin in Plugins. UPGRADING.md and CHANGELOG.md, which say
// what the old forms became, are left out.
func TestDocsRegisterTheKitOnePath(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		copied := strings.HasSuffix(name, ".md") || name == "doc.go" || name == "example_test.go"
		if !copied || name == "UPGRADING.md" || name == "CHANGELOG.md" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		read[filepath.ToSlash(path)] = true
		for i, line := range strings.Split(string(b), "\n") {
			if oldRegistrations.MatchString(line) {
				t.Errorf("%s:%d registers the kit another way than interceptors.NewPlugin in worker.Options.Plugins: %s", path, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.md", "samples/README.md", "interceptors/doc.go", "testsuite/example_test.go", "contrib/opentelemetry/doc.go"} {
		if !read[want] {
			t.Errorf("%s was not read: the walk missed what it checks", want)
		}
	}
}
