// Command payloads-gc deletes the chunks, nodes and conversation log
// segments of the kit's payload store that no open or retained run of a
// namespace references any more: run it after the namespace's retention has
// removed closed runs (daily, say).
//
//	payloads-gc -address localhost:7233 -namespace default \
//	    -bucket 's3://agents-payloads?region=eu-west-1' -grace 24h [-dry-run]
//
// It reads every run the namespace lists, open or closed, collects the
// claims and conversation logs in their histories, and deletes what none of
// them reaches and was written more than -grace ago
// (payloads.Store.Collect).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/temporaladk/adk-go/contrib/blob"
	"github.com/temporaladk/adk-go/payloads"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "payloads-gc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("payloads-gc", flag.ContinueOnError)
	address := fs.String("address", "localhost:7233", "the Temporal frontend's host:port")
	namespace := fs.String("namespace", "default", "the namespace whose runs reference the store")
	bucketURL := fs.String("bucket", "", "the store's bucket, as a gocloud.dev/blob URL (required)")
	name := fs.String("name", payloads.DefaultName, "the store's driver name (payloads.Options.Name)")
	grace := fs.Duration("grace", 0, "keep objects written less than this long ago (required; at least 2×payloads.PresenceWindow)")
	dryRun := fs.Bool("dry-run", false, "report what would be deleted and delete nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bucketURL == "" {
		return errors.New("-bucket is required")
	}
	b, err := blob.Open(ctx, *bucketURL)
	if err != nil {
		return err
	}
	defer b.Close()
	store, err := payloads.NewStore(payloads.Options{Bucket: b, Name: *name})
	if err != nil {
		return err
	}
	c, err := client.Dial(client.Options{HostPort: *address, Namespace: *namespace})
	if err != nil {
		return err
	}
	defer c.Close()
	started := time.Now()
	live, err := store.LiveRefs(ctx, c)
	if err != nil {
		return err
	}
	rep, err := store.Collect(ctx, live, payloads.CollectOptions{Grace: *grace, DryRun: *dryRun})
	if err != nil {
		return err
	}
	verb := "deleted"
	if *dryRun {
		verb = "would delete"
	}
	fmt.Fprintf(out, "%d stored payloads and %d conversation logs referenced; live %d objects (%d bytes); %s %d objects (%d bytes); kept %d young objects; %v\n",
		len(live.Refs), len(live.Logs), rep.Live, rep.LiveBytes, verb, rep.Deleted, rep.DeletedBytes, rep.Young, time.Since(started).Round(time.Millisecond))
	return nil
}
