package temporaladk_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/temporaladk/adk-go/internal/vocabtest"
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

type omitInput struct {
	Memo string    `json:"memo,omitempty"`
	When time.Time `json:"when,omitzero"`
}

type embeddedInput struct {
	*Seat
	Tenant string `json:"tenant"`
}

func TestDeclarationValidate(t *testing.T) {
	t.Parallel()
	valid := temporaladk.Declaration{Class: temporaladk.Tool, Timeout: 30 * time.Second, Idempotency: temporaladk.Effectful}
	with := func(change func(*temporaladk.Declaration)) temporaladk.Declaration {
		d := valid
		change(&d)
		return d
	}
	tests := []struct {
		name     string
		activity string
		decl     temporaladk.Declaration
		input    any
		wantErr  string
	}{
		{name: "minimal", decl: valid},
		{name: "key fields on a struct", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"flight", "passenger"} }), input: bookInput{}},
		{name: "nested key field", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"seat.row", "seat.Col"} }), input: &bookInput{}},
		{name: "key field of a map", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"order"} }), input: map[string]any{"order": "A1"}},
		{name: "nested map", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"order.id"} }), input: map[string]any{"order": map[string]any{"id": 1}}},
		{name: "promoted through a nil embedded pointer", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"row", "tenant"} }), input: embeddedInput{}},
		{name: "empty activity type", activity: " ", decl: valid, wantErr: "activity type is empty"},
		{name: "zero timeout: the class policy's", decl: with(func(d *temporaladk.Declaration) { d.Timeout = 0 })},
		{name: "no class: the tag's", decl: with(func(d *temporaladk.Declaration) { d.Class = "" })},
		{name: "unknown class", decl: with(func(d *temporaladk.Declaration) { d.Class = "FAST" }), wantErr: `Class is "FAST"`},
		{name: "key field the JSON leaves out when zero", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"memo"} }), input: omitInput{}, wantErr: `field "memo" is tagged omitempty`},
		{name: "key field omitzero", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"when"} }), input: omitInput{}, wantErr: `field "when" is tagged omitzero`},
		{name: "negative timeout", decl: with(func(d *temporaladk.Declaration) { d.Timeout = -time.Second }), wantErr: "Timeout is -1s"},
		{name: "unknown idempotency", decl: with(func(d *temporaladk.Declaration) { d.Idempotency = 9 }), wantErr: "Idempotency is Idempotency(9)"},
		{name: "key field the input lacks", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"flight", "date"} }), input: bookInput{}, wantErr: `KeyFields names "date"`},
		{name: "key field hidden from json", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"Note"} }), input: bookInput{}, wantErr: `KeyFields names "Note"`},
		{name: "unexported field", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"internal"} }), input: bookInput{}, wantErr: `KeyFields names "internal"`},
		{name: "path into a scalar", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"flight.number"} }), input: bookInput{}, wantErr: `KeyFields names "flight.number"`},
		{name: "map lacks key", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"order"} }), input: map[string]any{"id": 1}, wantErr: `KeyFields names "order"`},
		{name: "key fields without input: paths only", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"flight"} })},
		{name: "empty key field", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{""} }), input: bookInput{}, wantErr: `holds "", which is not a field path`},
		{name: "malformed path", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"seat..row"} }), input: bookInput{}, wantErr: "not a field path"},
		{name: "approval with the default wait", decl: with(func(d *temporaladk.Declaration) { d.RequiresApproval = true })},
		{name: "approval with a wait", decl: with(func(d *temporaladk.Declaration) { d.RequiresApproval, d.ApprovalTimeout = true, time.Hour })},
		{name: "negative approval timeout", decl: with(func(d *temporaladk.Declaration) { d.RequiresApproval, d.ApprovalTimeout = true, -time.Second }), wantErr: "ApprovalTimeout is -1s"},
		{name: "approval timeout without approval", decl: with(func(d *temporaladk.Declaration) { d.ApprovalTimeout = time.Hour }), wantErr: "RequiresApproval is false"},
		{name: "duplicate key field", decl: with(func(d *temporaladk.Declaration) { d.KeyFields = []string{"flight", "flight"} }), input: bookInput{}, wantErr: `names "flight" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			activity := tt.activity
			if activity == "" {
				activity = "book_seat"
			}
			decl := tt.decl
			decl.Input = tt.input
			err := decl.Validate(activity)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.ErrorContains(t, err, `declaration of "`+activity+`"`)
				return
			}
			require.NoError(t, err)
		})
	}
}

func TestDeclarationCloneKeepsNoReferenceToTheCallersSlice(t *testing.T) {
	t.Parallel()
	fields := []string{"flight"}
	decl := temporaladk.Declaration{Timeout: time.Second, KeyFields: fields}.Clone()
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
		got, err := vocabtest.ParseIdempotency(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.effectful, got.TreatedAsEffectful(), tt.in)
		again, err := vocabtest.ParseIdempotency(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, again, "String and Parse round-trip")
	}
	_, err := vocabtest.ParseIdempotency("safe")
	require.ErrorContains(t, err, `unknown idempotency "safe"`)
	out, err := json.Marshal(map[string]temporaladk.Idempotency{"d": temporaladk.ReadOnly})
	require.NoError(t, err)
	assert.JSONEq(t, `{"d":"READ_ONLY"}`, string(out), "a declaration encodes by name")
	_, err = temporaladk.Idempotency(4).MarshalText()
	require.ErrorContains(t, err, "is not an idempotency declaration")
	assert.False(t, temporaladk.Idempotency(4).Valid())
	assert.Equal(t, temporaladk.Undeclared, temporaladk.Idempotency(0), "the zero value is Undeclared")
}
