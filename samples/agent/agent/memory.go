package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/temporaladk"
)

// MemoryStore keeps each conversation's turns in a JSON file of a directory.
type MemoryStore struct {
	dir string
	mu  sync.Mutex
}

// NewMemoryStore returns a store in dir, which is created when missing.
func NewMemoryStore(dir string) (*MemoryStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	return &MemoryStore{dir: dir}, nil
}

// Dir is the store's directory.
func (m *MemoryStore) Dir() string { return m.dir }

var conversationName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (m *MemoryStore) file(conversation string) (string, error) {
	if !conversationName.MatchString(conversation) {
		// A name that is not a plain file name is refused, never retried.
		return "", &temporaladk.SchemaViolationError{Schema: "conversation", Reason: fmt.Sprintf("%q is not 1-64 letters, digits, '-' or '_'", conversation)}
	}
	return filepath.Join(m.dir, conversation+".json"), nil
}

// Load returns a conversation's turns; none for a new conversation.
func (m *MemoryStore) Load(conversation string) ([]chat.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.load(conversation)
}

func (m *MemoryStore) load(conversation string) ([]chat.Message, error) {
	path, err := m.file(conversation)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return []chat.Message{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	var turns []chat.Message
	if err := json.Unmarshal(b, &turns); err != nil {
		return nil, fmt.Errorf("memory: %s: %w", path, err)
	}
	return turns, nil
}

// Append adds turns to a conversation and returns how many it holds.
func (m *MemoryStore) Append(conversation string, turns []chat.Message) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	all, err := m.load(conversation)
	if err != nil {
		return 0, err
	}
	all = append(all, turns...)
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return 0, fmt.Errorf("memory: encoding: %w", err)
	}
	path, _ := m.file(conversation)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return 0, fmt.Errorf("memory: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return 0, fmt.Errorf("memory: %w", err)
	}
	return len(all), nil
}
