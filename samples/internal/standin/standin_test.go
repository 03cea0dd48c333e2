package standin_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/samples/internal/standin"
)

func TestParseFault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want standin.Fault
		err  string
	}{
		{in: "", want: standin.Fault{}},
		{in: "503", want: standin.Fault{Kind: "503"}},
		{in: "503x3", want: standin.Fault{Kind: "503", Times: 3}},
		{in: "429=2s", want: standin.Fault{Kind: "429", Wait: 2 * time.Second}},
		{in: "stall=5s", want: standin.Fault{Kind: "stall", Wait: 5 * time.Second}},
		{in: "drop", want: standin.Fault{Kind: "drop"}},
		{in: "429", err: "needs a duration"},
		{in: "stall=soon", err: `"soon" is not a duration`},
		{in: "503x0", err: "not a count"},
		{in: "418", err: "unknown fault"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := standin.ParseFault(tt.in)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			back, err := standin.ParseFault(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, back, "String and ParseFault round-trip")
		})
	}
}
