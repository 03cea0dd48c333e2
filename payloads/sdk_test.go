package payloads

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
)

// The driver's Store and Retrieve and the DataConverter, as the SDK calls
// them: Retrieve reads nothing, the DataConverter fetches on decode.
func TestDriverAndDataConverterRoundTrip(t *testing.T) {
	t.Parallel()
	s, b := newTestStore(t, Options{})
	d := s.driver()
	require.Equal(t, DefaultName, d.Name())
	require.Equal(t, DriverType, d.Type())
	dc := s.DataConverter(nil)
	value := strings.Repeat("a tool's output. ", 1000)
	p, err := dc.ToPayload(value)
	require.NoError(t, err)
	claims, err := d.Store(converter.StorageDriverStoreContext{Context: context.Background()}, []*commonpb.Payload{p})
	require.NoError(t, err)
	require.Len(t, claims, 1)
	require.Less(t, len(claims[0].ClaimData[claimRoot]+claims[0].ClaimData[claimMeta]+claims[0].ClaimData[claimSize]), 200)

	reader, err := NewStore(Options{Bucket: b})
	require.NoError(t, err)
	got, err := reader.driver().Retrieve(converter.StorageDriverRetrieveContext{Context: context.Background()}, claims)
	require.NoError(t, err)
	require.Zero(t, reader.Stats().ObjectsRead, "Retrieve reads nothing")
	ref, ok := reader.StoredRef(got[0])
	require.True(t, ok)
	require.Equal(t, int64(len(p.GetData())), ref.Size)

	var out string
	require.NoError(t, reader.DataConverter(nil).FromPayload(got[0], &out))
	require.Equal(t, value, out)
	require.Positive(t, reader.Stats().ObjectsRead)

	// The default DataConverter refuses a stored payload, naming it.
	err = converter.GetDefaultDataConverter().FromPayload(got[0], &out)
	require.ErrorContains(t, err, "encoding "+StoredEncoding)

	// A store of another name refuses it too.
	other, err := NewStore(Options{Bucket: b, Name: "other"})
	require.NoError(t, err)
	err = other.DataConverter(nil).FromPayload(got[0], &out)
	require.ErrorContains(t, err, `stored by store "temporaladk-payloads"`)

	// A lost object is a workflow task failure, naming the store.
	require.NoError(t, b.List(context.Background(), "chunks/", func(o Object) error { return b.Delete(context.Background(), o.Key) }))
	cold, err := NewStore(Options{Bucket: b})
	require.NoError(t, err)
	err = cold.DataConverter(nil).FromPayload(got[0], &out)
	var taskFailure *converter.WorkflowTaskFailureError
	require.ErrorAs(t, err, &taskFailure)
	var missing *MissingError
	require.ErrorAs(t, err, &missing)
}

func TestRetrieveRefusesABadClaim(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t, Options{})
	for name, claim := range map[string]map[string]string{
		"version": {claimVersion: "2"},
		"root":    {claimVersion: "1", claimRoot: "xyz", claimSize: "1", claimMeta: ""},
		"size":    {claimVersion: "1", claimRoot: strings.Repeat("ab", 32), claimSize: "-1", claimMeta: ""},
		"meta":    {claimVersion: "1", claimRoot: strings.Repeat("ab", 32), claimSize: "1", claimMeta: "!"},
	} {
		_, err := s.driver().Retrieve(converter.StorageDriverRetrieveContext{Context: context.Background()}, []converter.StorageDriverClaim{{ClaimData: claim}})
		var corrupt *CorruptError
		require.ErrorAs(t, err, &corrupt, name)
	}
}

func TestConfigureGivesTheDriverWithItsDataConverter(t *testing.T) {
	t.Parallel()
	s, _ := newTestStore(t, Options{Threshold: 1000})
	es, dc, err := s.Configure(converter.ExternalStorage{}, nil)
	require.NoError(t, err)
	require.Len(t, es.Drivers, 1)
	require.Equal(t, 1000, es.PayloadSizeThreshold)
	require.NotNil(t, dc)
	_, _, err = s.Configure(es, nil)
	require.ErrorContains(t, err, "ExternalStorage.Drivers is already set")
	opts, err := s.ClientOptions(client.Options{})
	require.NoError(t, err)
	require.Len(t, opts.ExternalStorage.Drivers, 1)
	require.NotNil(t, opts.DataConverter)
	_, err = s.ClientOptions(opts)
	require.ErrorContains(t, err, "ClientOptions")
	ropts, err := s.ReplayerOptions(worker.WorkflowReplayerOptions{})
	require.NoError(t, err)
	require.Len(t, ropts.ExternalStorage.Drivers, 1)
	require.NotNil(t, ropts.DataConverter)
}
