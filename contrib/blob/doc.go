// Package blob gives the kit's payload store (package payloads) every bucket
// gocloud.dev/blob opens: a local directory, S3 and S3-compatible servers,
// Google Cloud Storage, Azure Blob Storage. A fleet on several machines
// shares one bucket.
//
//	bucket, _ := blob.Open(ctx, "s3://agents-payloads?region=eu-west-1")
//	defer bucket.Close()
//	store, _ := payloads.NewStore(payloads.Options{Bucket: bucket})
//	opts, _ := store.ClientOptions(client.Options{HostPort: "temporal:7233"})
//	c, _ := client.Dial(opts)
//
// Package blobtest starts a real S3-compatible server for tests: versitygw,
// built from the Go module proxy.
package blob
