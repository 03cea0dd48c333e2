package payloads_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/temporaladk/adk-go/payloads"
)

// A conversation stored whole twice, grown by one message in between: the
// second Put writes what was added, not the conversation again.
func ExampleStore_Put() {
	dir, _ := os.MkdirTemp("", "payloads-example-")
	defer os.RemoveAll(dir)
	bucket, _ := payloads.NewDirBucket(dir)
	store, _ := payloads.NewStore(payloads.Options{Bucket: bucket})
	ctx := context.Background()

	var conv strings.Builder
	for i := range 200 {
		fmt.Fprintf(&conv, "message %d: the tool found %d results about durable execution.\n", i, i*7%13)
	}
	first, _ := store.Put(ctx, []byte(conv.String()))
	before := store.Stats().BytesWritten
	conv.WriteString("message 200: and one more finding.\n")
	second, _ := store.Put(ctx, []byte(conv.String()))
	added := store.Stats().BytesWritten - before

	got, _ := store.Get(ctx, second)
	fmt.Println(first.Size, second.Size, string(got) == conv.String(), added < second.Size/2)
	// Output: 12535 12570 true true
}
