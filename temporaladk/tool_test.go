package temporaladk_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/temporaladk"
)

type Seat struct {
	Row int `json:"row"`
	Col string
}

type bookInput struct {
	Flight    string `json:"flight"`
	Passenger string `json:"passenger"`
	Seat      Seat   `json:"seat"`
	Note      string `json:"-"`
	internal  string
}

type embeddedInput struct {
	*Seat
	Tenant string `json:"tenant"`
}

func TestDeclareTool(t *testing.T) {
	t.Parallel()
	valid := temporaladk.ToolDeclaration{Name: "book_seat", Timeout: 30 * time.Second, Idempotency: temporaladk.Effectful}
	with := func(change func(*temporaladk.ToolDeclaration)) temporaladk.ToolDeclaration {
		d := valid
		change(&d)
		return d
	}
	tests := []struct {
		name    string
		decl    temporaladk.ToolDeclaration
		input   any
		wantErr string
	}{
		{name: "minimal", decl: valid},
		{name: "key fields on a struct", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"flight", "passenger"} }), input: bookInput{}},
		{name: "nested key field", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"seat.row", "seat.Col"} }), input: &bookInput{}},
		{name: "key field of a map", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"order"} }), input: map[string]any{"order": "A1"}},
		{name: "nested map", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"order.id"} }), input: map[string]any{"order": map[string]any{"id": 1}}},
		{name: "promoted through a nil embedded pointer", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"row", "tenant"} }), input: embeddedInput{}},
		{name: "empty name", decl: with(func(d *temporaladk.ToolDeclaration) { d.Name = " " }), wantErr: "Name is empty"},
		{name: "zero timeout", decl: with(func(d *temporaladk.ToolDeclaration) { d.Timeout = 0 }), wantErr: "Timeout is 0s"},
		{name: "negative timeout", decl: with(func(d *temporaladk.ToolDeclaration) { d.Timeout = -time.Second }), wantErr: "Timeout is -1s"},
		{name: "unknown idempotency", decl: with(func(d *temporaladk.ToolDeclaration) { d.Idempotency = 9 }), wantErr: "Idempotency is Idempotency(9)"},
		{name: "key field the input lacks", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"flight", "date"} }), input: bookInput{}, wantErr: `KeyFields names "date"`},
		{name: "key field hidden from json", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"Note"} }), input: bookInput{}, wantErr: `KeyFields names "Note"`},
		{name: "unexported field", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"internal"} }), input: bookInput{}, wantErr: `KeyFields names "internal"`},
		{name: "path into a scalar", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"flight.number"} }), input: bookInput{}, wantErr: `KeyFields names "flight.number"`},
		{name: "map lacks key", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"order"} }), input: map[string]any{"id": 1}, wantErr: `KeyFields names "order"`},
		{name: "key fields without input", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"flight"} }), wantErr: "no input was given"},
		{name: "empty key field", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{""} }), input: bookInput{}, wantErr: `holds "", which is not a field path`},
		{name: "malformed path", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"seat..row"} }), input: bookInput{}, wantErr: "not a field path"},
		{name: "duplicate key field", decl: with(func(d *temporaladk.ToolDeclaration) { d.KeyFields = []string{"flight", "flight"} }), input: bookInput{}, wantErr: `names "flight" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := temporaladk.DeclareTool(tt.decl, tt.input)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.ErrorContains(t, err, `tool "`+tt.decl.Name+`"`)
				var de *temporaladk.DeclarationError
				require.ErrorAs(t, err, &de)
				assert.Equal(t, temporaladk.ToolDeclaration{}, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.decl, got)
		})
	}
}

func TestDeclareToolKeepsNoReferenceToTheCallersSlice(t *testing.T) {
	t.Parallel()
	fields := []string{"flight"}
	decl, err := temporaladk.DeclareTool(temporaladk.ToolDeclaration{Name: "book", Timeout: time.Second, KeyFields: fields}, bookInput{})
	require.NoError(t, err)
	fields[0] = "passenger"
	assert.Equal(t, []string{"flight"}, decl.KeyFields)
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		want      temporaladk.Idempotency
		effectful bool
	}{
		{"UNDECLARED", temporaladk.Undeclared, true},
		{"read-only", temporaladk.ReadOnly, false},
		{"READ_ONLY", temporaladk.ReadOnly, false},
		{"idempotent", temporaladk.Idempotent, false},
		{"Effectful", temporaladk.Effectful, true},
	}
	for _, tt := range tests {
		got, err := temporaladk.ParseIdempotency(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.effectful, got.TreatedAsEffectful(), tt.in)
		again, err := temporaladk.ParseIdempotency(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, again, "String and Parse round-trip")
	}
	_, err := temporaladk.ParseIdempotency("safe")
	require.ErrorContains(t, err, `unknown idempotency "safe"`)
	assert.False(t, temporaladk.Idempotency(4).Valid())
	assert.Equal(t, temporaladk.Undeclared, temporaladk.Idempotency(0), "the zero value is Undeclared")
}
