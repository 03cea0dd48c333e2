package agent_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/testclock"
	"github.com/temporaladk/adk-go/samples/agent/agent"
	"github.com/temporaladk/adk-go/samples/internal/chat"
	"github.com/temporaladk/adk-go/temporaladk"
)

func TestLedgerBooksOncePerKey(t *testing.T) {
	t.Parallel()
	l := agent.NewLedger(filepath.Join(t.TempDir(), "ledger.jsonl"))
	now := testclock.Epoch(t)
	b := agent.Booking{Flight: "LH400", Passenger: "ada", Seat: "12A"}
	first, fresh, err := l.Book("k1", b, 1, now)
	require.NoError(t, err)
	assert.True(t, fresh)
	again, fresh, err := l.Book("k1", agent.Booking{Flight: "LH400", Passenger: "ada", Seat: "14C"}, 2, now)
	require.NoError(t, err)
	assert.False(t, fresh, "a second call with the key lands on the first booking")
	assert.Equal(t, first, again)
	_, fresh, err = l.Book("", b, 1, now)
	require.NoError(t, err)
	assert.True(t, fresh)
	_, fresh, err = l.Book("", b, 1, now)
	require.NoError(t, err)
	assert.True(t, fresh, "without a key every call is an effect")
	entries, err := l.Entries()
	require.NoError(t, err)
	assert.Len(t, entries, 3)
}

func TestShippedIndexRanks(t *testing.T) {
	t.Parallel()
	idx, err := agent.ShippedIndex()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, idx.Len(), 24, "a few dozen texts")
	hits := idx.Search(agent.DefaultInput().Question, 3)
	require.Len(t, hits, 3)
	assert.Equal(t, "Baggage after a seat change", hits[0].Title)
	assert.GreaterOrEqual(t, hits[0].Score, hits[1].Score)
	assert.Empty(t, idx.Search("zzzz qqqq", 3), "no shared term, no hit")
	_, err = agent.ParseCorpus("Title only")
	assert.ErrorContains(t, err, "no text")
}

func TestMemoryStoreKeepsTurns(t *testing.T) {
	t.Parallel()
	m, err := agent.NewMemoryStore(filepath.Join(t.TempDir(), "memory"))
	require.NoError(t, err)
	turns, err := m.Load("c1")
	require.NoError(t, err)
	assert.Empty(t, turns)
	n, err := m.Append("c1", []chat.Message{{Role: "user", Content: "hi"}})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = m.Append("c1", []chat.Message{{Role: "assistant", Content: "hello"}})
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	turns, err = m.Load("c1")
	require.NoError(t, err)
	assert.Equal(t, []chat.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}, turns)
	_, err = m.Load("../etc/passwd")
	var schema *temporaladk.SchemaViolationError
	assert.ErrorAs(t, err, &schema, "a name that is not a file name is refused, never retried")
}
