package payloads

// Everything here touches the SDK's experimental external storage API
// (converter.StorageDriver, converter.ExternalStorage) or the codec's
// workflow-task failure: when the SDK changes it, this is the one file to
// change.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	commonpb "go.temporal.io/api/common/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/temporaladk/adk-go/internal/logref"
)

// DriverType is the storage driver's Type().
const DriverType = "temporaladk.payloads"

// StoredEncoding is the metadata encoding of a stored payload between the
// SDK's retrieval and the kit's DataConverter: a DataConverter without the
// store fails on it with "encoding temporaladk/stored-payload: payload
// encoding is not supported" instead of decoding anything.
const StoredEncoding = "temporaladk/stored-payload"

// metadataStore names the store on a stored payload.
const metadataStore = "temporaladk-store"

// The claim's fields, as recorded in history.
const (
	claimVersion = "v"
	claimRoot    = "root"
	claimSize    = "size"
	claimMeta    = "meta"
)

// driver is the store as a converter.StorageDriver (experimental in the
// SDK). It is handed out only with the store's DataConverter (ClientOptions,
// ReplayerOptions, Configure), since a reader with the driver and without
// the DataConverter would fail where its workflow input is decoded with a
// workflow failure, not a retried task. Store writes a payload's bytes into the store and records a claim of
// about 200 bytes, whatever the payload's size. Retrieve reads nothing: it
// hands the claim to the DataConverter as a stored payload, which is fetched
// when, and only if, something decodes it. So a workflow task reads the
// payloads its code decodes (an activity's result), never the inputs of the
// activities it scheduled, and a replay holds only what the workflow holds.
func (s *Store) driver() converter.StorageDriver { return driver{s} }

type driver struct{ s *Store }

func (d driver) Name() string { return d.s.name }
func (d driver) Type() string { return DriverType }

func (d driver) Store(ctx converter.StorageDriverStoreContext, ps []*commonpb.Payload) ([]converter.StorageDriverClaim, error) {
	claims := make([]converter.StorageDriverClaim, len(ps))
	limiter := ctx.GetLimiter()
	for i, p := range ps {
		err := limiter.Permit(ctx.Context, p, func() error {
			ref, err := d.s.Put(ctx.Context, p.GetData())
			if err != nil {
				return err
			}
			envelope := proto.Clone(p).(*commonpb.Payload)
			envelope.Data = nil
			meta, err := proto.Marshal(envelope)
			if err != nil {
				return fmt.Errorf("payloads: store %q: %w", d.s.name, err)
			}
			claims[i] = converter.StorageDriverClaim{ClaimData: map[string]string{
				claimVersion: "1",
				claimRoot:    hex.EncodeToString(ref.Root[:]),
				claimSize:    strconv.FormatInt(ref.Size, 10),
				claimMeta:    base64.StdEncoding.EncodeToString(meta),
			}}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return claims, nil
}

func (d driver) Retrieve(ctx converter.StorageDriverRetrieveContext, claims []converter.StorageDriverClaim) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(claims))
	for i, c := range claims {
		// No I/O here: the permit only keeps the SDK from warning that the
		// driver ignores its limiter.
		err := ctx.GetLimiter().Permit(ctx.Context, c, func() error {
			if _, _, err := parseClaim(d.s.name, c.ClaimData); err != nil {
				return err
			}
			data, err := json.Marshal(c.ClaimData)
			if err != nil {
				return err
			}
			out[i] = &commonpb.Payload{
				Metadata: map[string][]byte{
					converter.MetadataEncoding: []byte(StoredEncoding),
					metadataStore:              []byte(d.s.name),
				},
				Data: data,
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func parseClaim(store string, c map[string]string) (Ref, *commonpb.Payload, error) {
	bad := func(why string) error {
		return &CorruptError{Store: store, Key: "claim", Reason: why}
	}
	if c[claimVersion] != "1" {
		return Ref{}, nil, bad(fmt.Sprintf("version %q, this kit reads 1", c[claimVersion]))
	}
	var ref Ref
	root, err := hex.DecodeString(c[claimRoot])
	if err != nil || len(root) != len(ref.Root) {
		return Ref{}, nil, bad("root is not a SHA-256")
	}
	copy(ref.Root[:], root)
	if ref.Size, err = strconv.ParseInt(c[claimSize], 10, 64); err != nil || ref.Size < 0 {
		return Ref{}, nil, bad("size is not a length")
	}
	meta, err := base64.StdEncoding.DecodeString(c[claimMeta])
	if err != nil {
		return Ref{}, nil, bad("meta is not base64")
	}
	envelope := &commonpb.Payload{}
	if err := proto.Unmarshal(meta, envelope); err != nil {
		return Ref{}, nil, bad("meta is not a payload")
	}
	return ref, envelope, nil
}

// sdkReferenceType is the message type of the SDK's claim payloads in
// history (temporal.api.sdk.v1.ExternalStorageReference, as protojson).
var sdkReferenceType = string((*sdkpb.ExternalStorageReference)(nil).ProtoReflect().Descriptor().FullName())

// StoredRef returns the ref of a payload this store holds: a claim as
// history records it (the SDK's storage reference naming this store's
// driver), or a stored payload as Retrieve hands it over. It returns false
// for any other payload.
func (s *Store) StoredRef(p *commonpb.Payload) (Ref, bool) {
	claim, ok := s.claimOf(p)
	if !ok {
		return Ref{}, false
	}
	ref, _, err := parseClaim(s.name, claim)
	return ref, err == nil
}

// claimOf returns the claim of a payload that names this store's driver.
func (s *Store) claimOf(p *commonpb.Payload) (map[string]string, bool) {
	var claim map[string]string
	switch {
	case string(p.GetMetadata()[converter.MetadataEncoding]) == StoredEncoding:
		if json.Unmarshal(p.GetData(), &claim) != nil {
			return nil, false
		}
	case string(p.GetMetadata()[converter.MetadataEncoding]) == converter.MetadataEncodingProtoJSON &&
		string(p.GetMetadata()[converter.MetadataMessageType]) == sdkReferenceType:
		var ref sdkpb.ExternalStorageReference
		if protojson.Unmarshal(p.GetData(), &ref) != nil || ref.GetDriverName() != s.name {
			return nil, false
		}
		claim = ref.GetClaimData()
	default:
		return nil, false
	}
	return claim, true
}

// references returns what a payload in history references in the store:
// its ref when it is a claim (stored), and the heads of the conversation
// logs the store's DataConverter recorded on it (metadataLogs), on the
// payload or, for a claim, on the payload it stands for. A claim of this
// store or a record of its logs that does not parse is an error, since a
// collection could not know what it keeps.
func (s *Store) references(p *commonpb.Payload) (ref Ref, stored bool, heads [][32]byte, err error) {
	meta := p.GetMetadata()
	if claim, ok := s.claimOf(p); ok {
		var envelope *commonpb.Payload
		if ref, envelope, err = parseClaim(s.name, claim); err != nil {
			return Ref{}, false, nil, err
		}
		stored, meta = true, envelope.GetMetadata()
	}
	raw, ok := meta[metadataLogs]
	if !ok {
		return ref, stored, nil, nil
	}
	var rec logHeads
	if err := json.Unmarshal(raw, &rec); err != nil {
		return Ref{}, false, nil, &CorruptError{Store: s.name, Key: metadataLogs, Reason: "not a record of logs: " + err.Error()}
	}
	if rec.Store != s.name {
		return ref, stored, nil, nil // another store's logs
	}
	for _, h := range rec.Heads {
		id, err := logref.ParseID(h)
		if err != nil || id == ([32]byte{}) {
			return Ref{}, false, nil, &CorruptError{Store: s.name, Key: metadataLogs, Reason: fmt.Sprintf("head %q is not a segment ID", h)}
		}
		heads = append(heads, id)
	}
	return ref, stored, heads, nil
}

// codec turns stored payloads back into what was stored, on decode only.
type codec struct{ s *Store }

func (codec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) { return ps, nil }

// Decode fetches each stored payload. Its errors ask the SDK to fail the
// workflow task (converter.NewWorkflowTaskFailureError), so that workflow
// code never sees a lost chunk as an activity's error and takes another
// branch: the task is retried until the store answers. Outside a workflow
// task they are ordinary errors (an activity's input fails its attempt).
func (c codec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != StoredEncoding {
			out[i] = p
			continue
		}
		restored, err := c.s.restore(p)
		if err != nil {
			return nil, converter.NewWorkflowTaskFailureError(err)
		}
		out[i] = restored
	}
	return out, nil
}

func (s *Store) restore(p *commonpb.Payload) (*commonpb.Payload, error) {
	if name := string(p.GetMetadata()[metadataStore]); name != s.name {
		return nil, fmt.Errorf("payloads: the payload was stored by store %q; this DataConverter reads store %q", name, s.name)
	}
	var claim map[string]string
	if err := json.Unmarshal(p.GetData(), &claim); err != nil {
		return nil, &CorruptError{Store: s.name, Key: "claim", Reason: err.Error()}
	}
	ref, envelope, err := parseClaim(s.name, claim)
	if err != nil {
		return nil, err
	}
	// The SDK's context is not handed to codecs; a read is bounded by the
	// bucket's own timeouts.
	data, err := s.Get(context.Background(), ref)
	if err != nil {
		return nil, err
	}
	envelope.Data = data
	return envelope, nil
}

// DataConverter wraps parent (nil: the SDK's default) so that stored
// payloads are fetched when decoded. Give it, with ExternalStorage, to every
// client, worker and replayer that may meet a stored payload. Deadlock
// detection is paused while it runs, as a slow bucket is not a stuck
// workflow.
func (s *Store) DataConverter(parent converter.DataConverter) converter.DataConverter {
	if parent == nil {
		parent = converter.GetDefaultDataConverter()
	}
	return workflow.DataConverterWithoutDeadlockDetection(logConverter{s, converter.NewCodecDataConverter(parent, codec{s})})
}

// Configure returns the SDK's external storage option with the store as its
// only driver (and the store's threshold), and dc wrapped by the store's
// DataConverter: the two go together, wherever payloads are written or read.
// An es that already names a driver is an error.
func (s *Store) Configure(es converter.ExternalStorage, dc converter.DataConverter) (converter.ExternalStorage, converter.DataConverter, error) {
	if len(es.Drivers) > 0 {
		return converter.ExternalStorage{}, nil, errors.New("payloads: ExternalStorage.Drivers is already set; the store is the only driver it adds")
	}
	es.Drivers = []converter.StorageDriver{s.driver()}
	es.PayloadSizeThreshold = s.threshold
	return es, s.DataConverter(dc), nil
}

// ClientOptions returns opts with the store (Configure on
// opts.ExternalStorage and opts.DataConverter). Workers made from the client
// use both.
func (s *Store) ClientOptions(opts client.Options) (client.Options, error) {
	var err error
	opts.ExternalStorage, opts.DataConverter, err = s.Configure(opts.ExternalStorage, opts.DataConverter)
	if err != nil {
		return client.Options{}, fmt.Errorf("payloads: ClientOptions: %w", err)
	}
	return opts, nil
}

// ReplayerOptions returns opts with the store, as ClientOptions does for a
// client, for worker.NewWorkflowReplayerWithOptions.
func (s *Store) ReplayerOptions(opts worker.WorkflowReplayerOptions) (worker.WorkflowReplayerOptions, error) {
	var err error
	opts.ExternalStorage, opts.DataConverter, err = s.Configure(opts.ExternalStorage, opts.DataConverter)
	if err != nil {
		return worker.WorkflowReplayerOptions{}, fmt.Errorf("payloads: ReplayerOptions: %w", err)
	}
	return opts, nil
}
