package openai_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/temporaladk/adk-go/contrib/openai"
	"github.com/temporaladk/adk-go/temporaladk"
	"github.com/temporaladk/adk-go/testsuite"
)

// BenchmarkStream measures a 1,000-chunk completion from a local stand-in
// through the plain SDK loop and through Model.Stream with a heartbeater
// counting every chunk, in one run, so their ratio is the kit's cost.
func BenchmarkStream(b *testing.B) {
	const chunks = 1000
	p := newProvider(b, func(w http.ResponseWriter, r *http.Request, _ int64) { streamOf(w, chunks, "tok", "stop", nil) })
	params := sdk.ChatCompletionNewParams{Model: "gpt-4o-mini", Messages: []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("say hello")}}

	b.Run("sdk", func(b *testing.B) {
		client := sdk.NewClient(option.WithAPIKey("sk-test"), option.WithBaseURL(p.URL()), option.WithMaxRetries(0))
		b.ReportAllocs()
		for b.Loop() {
			stream := client.Chat.Completions.NewStreaming(context.Background(), params)
			n := 0
			for stream.Next() {
				n++
			}
			if stream.Err() != nil || n != chunks+3 {
				b.Fatalf("%d chunks, %v", n, stream.Err())
			}
		}
	})
	b.Run("kit", func(b *testing.B) {
		m, err := openai.New(openai.Options{APIKey: "sk-test", BaseURL: p.URL()})
		if err != nil {
			b.Fatal(err)
		}
		hb, err := temporaladk.NewHeartbeater(func(temporaladk.Heartbeat) {}, time.Minute, testsuite.NewFakeClock(testsuite.DefaultStartTime()), "bench")
		if err != nil {
			b.Fatal(err)
		}
		ctx := testsuite.ActivityContext(context.Background(), temporaladk.ActivityCall{Class: temporaladk.Model, Heartbeater: hb})
		b.ReportAllocs()
		for b.Loop() {
			res, err := m.Stream(ctx, params)
			if err != nil || res.Chunks != chunks+3 {
				b.Fatalf("%d chunks, %v", res.Chunks, err)
			}
		}
	})
}
