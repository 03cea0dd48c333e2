package interceptors

import (
	"context"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"

	"github.com/temporaladk/adk-go/internal/budget"
	"github.com/temporaladk/adk-go/internal/wire"
)

// readChainHeader reads what the run before carried; zero when the run's
// start header has no ChainHeaderKey. A field that does not decode, or
// decodes to numbers no run of the kit writes, is an error naming the field:
// the budgets it held would otherwise be lost, or widened, silently.
func readChainHeader(fields map[string]*commonpb.Payload) (budget.Carried, error) {
	p, ok := fields[wire.ChainHeaderKey]
	if !ok || p == nil {
		return budget.Carried{}, nil
	}
	var c budget.Carried
	if err := wire.Converter.FromPayload(p, &c); err != nil {
		return budget.Carried{}, fmt.Errorf("interceptors: the run's start header %q does not decode: %w", wire.ChainHeaderKey, err)
	}
	if err := c.Validate(); err != nil {
		return budget.Carried{}, fmt.Errorf("interceptors: the run's start header %q: %w", wire.ChainHeaderKey, err)
	}
	return c, nil
}

// writeChainHeader puts c in fields, the header of the run about to begin.
func writeChainHeader(fields map[string]*commonpb.Payload, c budget.Carried) error {
	if fields == nil {
		return fmt.Errorf("no header to write the run's state to")
	}
	p, err := wire.Converter.ToPayload(c)
	if err != nil {
		return fmt.Errorf("encoding the run's state: %w", err)
	}
	fields[wire.ChainHeaderKey] = p
	return nil
}

// perPlan reports whether h is one of few: without a key or a budget name,
// it is the same for every call of one class, declaration and
// MaxRetryAfter, so its encoding and decoding are worth keeping.
func perPlan(h wire.CallHeader) bool {
	return h.IdempotencyKey == "" && h.Budget == "" && h.Owner == (wire.CallOwner{})
}

// maxKeptHeaders bounds the encoded and the decoded headers a kit interceptor
// keeps, each: a plan's header is one per class, declaration and
// MaxRetryAfter, so a fleet's few dozen fit; more are encoded and decoded
// each time.
const maxKeptHeaders = 256

// encodeHeader encodes h. A header made per plan has its encoding kept, up
// to maxKeptHeaders of them: each call gets a Payload of its own that shares
// the kept metadata and bytes, which nothing writes to (a codec makes new
// payloads). The others are encoded each time.
func (i *kitInterceptor) encodeHeader(h wire.CallHeader) (*commonpb.Payload, error) {
	cacheable := perPlan(h)
	if cacheable {
		i.headersMu.RLock()
		kept, ok := i.headers[h]
		i.headersMu.RUnlock()
		if ok {
			return &commonpb.Payload{Metadata: kept.GetMetadata(), Data: kept.GetData()}, nil
		}
	}
	p, err := wire.Converter.ToPayload(h)
	if err != nil {
		return nil, fmt.Errorf("interceptors: encoding the call header: %w", err)
	}
	if cacheable {
		i.headersMu.Lock()
		if len(i.headers) < maxKeptHeaders {
			if i.headers == nil {
				i.headers = map[wire.CallHeader]*commonpb.Payload{}
			}
			i.headers[h] = &commonpb.Payload{Metadata: p.GetMetadata(), Data: p.GetData()}
		}
		i.headersMu.Unlock()
	}
	return p, nil
}

// readHeader returns the kit's header of the activity ctx serves, and
// whether there was one. The headers made per plan (see perPlan) arrive
// again and again, so their decodings are kept, by their bytes, up to
// maxKeptHeaders of them.
func (i *kitInterceptor) readHeader(ctx context.Context) (wire.CallHeader, bool, error) {
	return i.decodeHeader(interceptor.Header(ctx))
}

// decodeHeader is DecodeCallHeader with readHeader's kept decodings.
func (i *kitInterceptor) decodeHeader(fields map[string]*commonpb.Payload) (wire.CallHeader, bool, error) {
	p, ok := fields[wire.HeaderKey]
	if !ok || p == nil {
		return wire.CallHeader{}, false, nil
	}
	plainJSON := string(p.GetMetadata()[converter.MetadataEncoding]) == converter.MetadataEncodingJSON
	if plainJSON {
		i.decodedMu.RLock()
		h, kept := i.decoded[string(p.GetData())]
		i.decodedMu.RUnlock()
		if kept {
			return h, true, nil
		}
	}
	h, ok, err := wire.DecodeCallHeader(fields)
	if err != nil || !plainJSON || !perPlan(h) {
		return h, ok, err
	}
	i.decodedMu.Lock()
	if len(i.decoded) < maxKeptHeaders {
		if i.decoded == nil {
			i.decoded = map[string]wire.CallHeader{}
		}
		i.decoded[string(p.GetData())] = h
	}
	i.decodedMu.Unlock()
	return h, ok, nil
}
