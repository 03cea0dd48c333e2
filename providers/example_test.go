package providers_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/temporaladk/adk-go/providers"
	"github.com/temporaladk/adk-go/temporaladk"
)

func ExampleClassifyHTTP() {
	resp := &http.Response{
		StatusCode: 429,
		Header:     http.Header{"Retry-After": {"2"}},
		Body:       io.NopCloser(strings.NewReader(`{"error":{"code":"rate_limit_exceeded"}}`)),
	}
	err := providers.ClassifyHTTP("openai", resp, nil, time.Now())
	var limited *temporaladk.RateLimitError
	if errors.As(err, &limited) {
		fmt.Println(limited.RetryAfter, limited.Retryable())
	}
	// Output:
	// 2s true
}

func ExampleRetryAfter() {
	// retry-after-ms wins over Retry-After when both are sent.
	h := http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}}
	wait, asked := providers.RetryAfter(h, time.Now())
	fmt.Println(wait, asked)
	// Output:
	// 1.5s true
}

func ExampleRetryableStatus() {
	for _, status := range []int{429, 500, 501, 529} {
		fmt.Println(status, providers.RetryableStatus(status))
	}
	// Output:
	// 429 true
	// 500 true
	// 501 false
	// 529 true
}

func ExampleReportUsage() {
	// The kit's activity interceptor installs the recorder; a test can too.
	var total providers.Usage
	ctx, _ := providers.WithUsageRecorder(context.Background(), func(u providers.Usage) {
		total.InputTokens += u.InputTokens
		total.OutputTokens += u.OutputTokens
	})
	reported, err := providers.ReportUsage(ctx, providers.Usage{InputTokens: 120, OutputTokens: 30, CachedInputTokens: 100})
	fmt.Println(reported, err, total.InputTokens, total.OutputTokens)

	reported, _ = providers.ReportUsage(context.Background(), providers.Usage{InputTokens: 1})
	fmt.Println(reported)
	// Output:
	// true <nil> 120 30
	// false
}

// A streaming provider activity reports each delta as it arrives; under
// the kit with a live observer a screen sees it, and the activity's result
// stays the whole reply.
func ExampleReportText() {
	reply := ""
	for _, delta := range []string{"Hel", "lo"} {
		if _, err := providers.ReportText(context.Background(), providers.Text, delta); err != nil {
			panic(err)
		}
		reply += delta
	}
	fmt.Println(reply)
	// Output: Hello
}
