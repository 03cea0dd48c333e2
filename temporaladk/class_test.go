package temporaladk_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/temporaladk/adk-go/interceptors"
	"github.com/temporaladk/adk-go/internal/vocab"
	"github.com/temporaladk/adk-go/internal/vocabtest"
	"github.com/temporaladk/adk-go/temporaladk"
	kittest "github.com/temporaladk/adk-go/testsuite"
)

func TestParseClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    temporaladk.Class
		wantErr string
	}{
		{name: "upper", in: "MODEL", want: temporaladk.Model},
		{name: "lower", in: "tool", want: temporaladk.Tool},
		{name: "mixed", in: "Retrieval", want: temporaladk.Retrieval},
		{name: "memory", in: "memory", want: temporaladk.Memory},
		{name: "unknown", in: "REASONING", wantErr: `unknown activity class "REASONING"`},
		{name: "empty is no class", in: "", want: ""},
		{name: "padded is not trimmed", in: " MODEL", wantErr: `unknown activity class " MODEL"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := vocabtest.ParseClass(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, temporaladk.Class(""), got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want != "", got.Valid())
		})
	}
}

func TestClassReadsFromJSONAndAnUnknownNameLeavesItUnchanged(t *testing.T) {
	t.Parallel()
	var got struct {
		Class temporaladk.Class `json:"class"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"class":"retrieval"}`), &got))
	assert.Equal(t, temporaladk.Retrieval, got.Class)
	out, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, `{"class":"RETRIEVAL"}`, string(out), "a class encodes in its canonical spelling")

	c := temporaladk.Tool
	require.ErrorContains(t, c.UnmarshalText([]byte("LLM")), `unknown activity class "LLM"`)
	assert.Equal(t, temporaladk.Tool, c, "a refused name changes nothing")
}

func TestClassesAreTheFourValidOnes(t *testing.T) {
	t.Parallel()
	for _, c := range vocab.Classes() {
		assert.True(t, c.Valid(), c)
	}
	assert.False(t, temporaladk.Class("").Valid())
	assert.False(t, temporaladk.Class("model").Valid(), "only the canonical spelling is a Class value")
	assert.Equal(t, "model", temporaladk.Model.Lower())
}

func TestWithClassTagsAWorkflowContext(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env, err := kittest.NewKitTestEnvironment(&s, interceptors.Options{})
	require.NoError(t, err)
	env.ExecuteWorkflow(func(ctx workflow.Context) ([]string, error) {
		_, before := vocab.ClassFrom(ctx)
		tagged := temporaladk.WithClass(ctx, temporaladk.Retrieval)
		c, after := vocab.ClassFrom(tagged)
		_, parent := vocab.ClassFrom(ctx)
		return []string{boolString(before), c.String(), boolString(after), boolString(parent)}, nil
	})
	require.NoError(t, env.GetWorkflowError())
	var got []string
	require.NoError(t, env.GetWorkflowResult(&got))
	assert.Equal(t, []string{"false", "RETRIEVAL", "true", "false"}, got)
}

func TestClassFromNilContext(t *testing.T) {
	t.Parallel()
	c, ok := vocab.ClassFrom(nil)
	assert.False(t, ok)
	assert.Equal(t, temporaladk.Class(""), c)
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
