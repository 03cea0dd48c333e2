// Package d holds helpers reached through a function variable, a struct field and an interface.
package d

import (
	"os"
	"time"
)

// Now is the clock, kept in a package variable.
var Now = time.Now // want Now:`^reaches\(ADK-W003 d\.Now → time\.Now\)$`

// Service reads the clock through a field set once by its constructor.
type Service struct {
	clock func() time.Time // want clock:`^reaches\(ADK-W003 \(d\.Service\)\.clock → time\.Now\)$`
}

// NewService sets the field.
func NewService() *Service { return &Service{clock: time.Now} }

// Stamp calls through the field.
func (s *Service) Stamp() time.Time { return s.clock() } // want Stamp:`^reaches\(ADK-W003 \(\*d\.Service\)\.Stamp → \(d\.Service\)\.clock → time\.Now\)$`

// Store loads values by key.
type Store interface {
	Load(key string) ([]byte, error)
}

// fileStore reads the file system.
type fileStore struct{ dir string }

func (f *fileStore) Load(key string) ([]byte, error) { return os.ReadFile(f.dir + "/" + key) } // want Load:`^reaches\(ADK-W004 \(\*d\.fileStore\)\.Load → os\.ReadFile\)$`

// memStore is pure.
type memStore map[string][]byte

func (m memStore) Load(key string) ([]byte, error) { return m[key], nil }

// Stores returns both.
func Stores() []Store { return []Store{&fileStore{dir: "."}, memStore{}} }
