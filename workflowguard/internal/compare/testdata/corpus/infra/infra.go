// Package infra holds the helpers the agent workflows share: configuration, stores, clocks and
// ID generation. Lines marked HAZARD must be reported, lines marked TRAP must not.
package infra

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing/fstest"
	"time"

	"go.temporal.io/sdk/workflow"
)

// Clock tells the time.
type Clock interface{ Now() time.Time }

// SystemClock is the clock the workers are wired with.
type SystemClock struct{}

// Now reads the wall clock.
func (SystemClock) Now() time.Time { return time.Now() }

// Store loads prompt templates by name.
type Store interface {
	Load(name string) (string, error)
}

// DiskStore reads templates from the worker's disk.
type DiskStore struct{ Dir string }

// Load reads a file.
func (d DiskStore) Load(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(d.Dir, name))
	return string(b), err
}

// Renderer formats text; every implementation is pure.
type Renderer interface{ Render(s string) string }

// Upper upper-cases.
type Upper struct{}

// Render upper-cases s.
func (Upper) Render(s string) string { return strings.ToUpper(s) }

// Ticketer numbers requests through a function set once by its constructor.
type Ticketer struct {
	draw func() int
	pad  func(string) string
}

// NewTicketer wires the ticketer with a random source.
func NewTicketer() *Ticketer {
	return &Ticketer{draw: rand.Int, pad: func(s string) string { return s + "-" }}
}

// Next draws a ticket.
func (t *Ticketer) Next() int { return t.draw() }

// Label pads a label.
func (t *Ticketer) Label(s string) string { return t.pad(s) }

// Now is the package's clock, swappable in tests.
var Now = time.Now

// Region reads the deployment region from the environment.
func Region() string { return os.Getenv("REGION") }

// LoadPrompt reads a prompt from disk.
func LoadPrompt(name string) (string, error) {
	b, err := os.ReadFile(name)
	return string(b), err
}

// Slug is pure.
func Slug(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") }

var templates embed.FS

var fixtures = fstest.MapFS{"greeting.txt": &fstest.MapFile{Data: []byte("hello")}}

var configDir = os.DirFS("/etc/agent")

// ConfigWorkflow reads configuration in many ways.
func ConfigWorkflow(ctx workflow.Context) (string, error) {
	model := os.Getenv("MODEL")                     // HAZARD
	key, _ := os.LookupEnv("API_KEY")               // HAZARD
	host, _ := os.Hostname()                        // HAZARD
	raw, _ := os.ReadFile("/etc/agent/model.json")  // HAZARD
	_, statErr := os.Stat("/etc/agent/override")    // HAZARD
	matches, _ := filepath.Glob("/etc/agent/*.md")  // HAZARD
	extra, _ := fs.ReadFile(configDir, "extra")     // HAZARD
	region := Region()                              // HAZARD
	prompt, _ := LoadPrompt("system.txt")           // HAZARD
	wd, _ := os.Getwd()                             // HAZARD
	tpl, _ := templates.ReadFile("t.tmpl")          // TRAP
	fix, _ := fs.ReadFile(fixtures, "greeting.txt") // TRAP
	path := filepath.Join("prompts", model)         // TRAP
	missing := errors.Is(statErr, os.ErrNotExist)   // TRAP
	var buf bytes.Buffer
	buf.WriteString(Slug(region))                                                                    // TRAP
	cached := workflow.SideEffect(ctx, func(ctx workflow.Context) any { return os.Getenv("CACHE") }) // TRAP
	_ = cached
	_ = []any{key, host, raw, matches, extra, prompt, wd, tpl, fix, path, missing}
	return model + buf.String(), nil
}

// StampWorkflow reads the clock and draws numbers through variables, fields and interfaces.
func StampWorkflow(ctx workflow.Context, clock Clock, store Store, r Renderer) (string, error) {
	t := NewTicketer()
	n := t.Next()                        // HAZARD
	at := Now()                          // HAZARD
	seen := clock.Now()                  // HAZARD
	tpl, _ := store.Load("greeting")     // HAZARD
	label := t.Label("x")                // TRAP
	shout := r.Render(tpl)               // TRAP
	now := workflow.Now(ctx)             // TRAP
	_ = workflow.Sleep(ctx, time.Second) // TRAP
	return label + shout + at.String() + seen.String() + now.String() + string(rune(n)), nil
}

// FetchConfig is an activity: it may read what it likes.
func FetchConfig(ctx context.Context) (string, error) {
	b, err := os.ReadFile(os.Getenv("CONFIG"))
	_ = time.Now()
	return string(b), err
}
