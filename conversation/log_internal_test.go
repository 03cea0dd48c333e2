package conversation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// spaced is a message whose own MarshalJSON writes spaces and raw HTML,
// which encoding/json compacts and escapes.
type spaced struct{}

func (spaced) MarshalJSON() ([]byte, error) { return []byte(`{ "a" : "<b>&" , "c" : [ 1 , 2 ] }`), nil }

// A segment's bytes, and so its ID, are what json.Marshal writes for it,
// whatever the messages hold: a takeover by a build that wrote segments
// otherwise would find none of the earlier build's segments in the store.
func TestSegmentEncodeIsJSONMarshal(t *testing.T) {
	msgs := []any{
		map[string]string{"role": "tool", "content": "<script>&amp; \u2028 \u2029 \"quoted\" \\ \t\n é 😀 \x00"},
		"invalid utf-8: \xff\xfe",
		spaced{},
		[]int{1, 2, 3},
		nil,
	}
	for _, prev := range []string{"", "ab12"} {
		seg := segmentJSON{V: 1, Prev: prev}
		for _, m := range msgs {
			raw, err := json.Marshal(m)
			require.NoError(t, err)
			seg.Msgs = append(seg.Msgs, raw)
		}
		want, err := json.Marshal(seg)
		require.NoError(t, err)
		require.Equal(t, string(want), string(seg.encode()))
	}
}

// BenchmarkSegmentEncode compares a 50 KB tool output's segment written
// out with json.Marshal's, which validates and compacts the message again:
//
//	go test -run '^$' -bench BenchmarkSegmentEncode -benchtime 2000x -count 5 ./conversation
func BenchmarkSegmentEncode(b *testing.B) {
	raw, err := json.Marshal(map[string]string{"role": "tool", "content": strings.Repeat("temporal workflow history, ", 50_000/27)})
	require.NoError(b, err)
	seg := segmentJSON{V: 1, Prev: strings.Repeat("ab", 32), Msgs: []json.RawMessage{raw}}
	b.Run("json.Marshal", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := json.Marshal(seg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			_ = seg.encode()
		}
	})
}
