// Package datadir gives a sample its data directory: the one the user
// named, created if missing and always kept, or a new temporary one that
// the sample removes when it ends well and keeps, saying where, when it
// fails, so that the worker log and histories the failure left can be
// read.
//
//	func Run(cfg Config) (err error) {
//		data, err := datadir.Open(cfg.DataDir, "temporaladk-agent-")
//		if err != nil {
//			return err
//		}
//		defer data.Close(&err)
//		// ... data.Path ...
//	}
package datadir

import (
	"fmt"
	"os"
	"strings"
)

// Dir is a sample's data directory.
type Dir struct {
	// Path is the directory.
	Path string
	// Temporary is true when Open made it, and Close removes it.
	Temporary bool
}

// Open returns the directory dir, created if missing; or, when dir is
// empty, a new temporary directory whose name begins with prefix.
func Open(dir, prefix string) (*Dir, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		return &Dir{Path: dir}, nil
	}
	if strings.TrimSpace(prefix) == "" || strings.ContainsAny(prefix, `/\`) {
		return nil, fmt.Errorf("data directory: the prefix %q must name a temporary directory, without a path separator", prefix)
	}
	path, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, fmt.Errorf("a temporary data directory: %w", err)
	}
	return &Dir{Path: path, Temporary: true}, nil
}

// Close ends the sample's use of d; errp is the sample's result. A
// temporary directory is removed when *errp is nil, and a failure to
// remove it becomes *errp; when *errp is an error, the directory is kept,
// with the logs and histories the failure left, and *errp says where it
// is. A directory the user named is kept as it is. Defer Close right
// after Open: defers run last first, so it runs after everything that
// writes into d has closed.
func (d *Dir) Close(errp *error) {
	if d == nil || !d.Temporary || errp == nil {
		return
	}
	if *errp != nil {
		*errp = fmt.Errorf("%w (its data directory %s is kept)", *errp, d.Path)
		return
	}
	if err := os.RemoveAll(d.Path); err != nil {
		*errp = fmt.Errorf("removing the temporary data directory: %w", err)
	}
}
