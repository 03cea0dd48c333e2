// Package payloads stores the large payloads of long agent conversations
// outside Temporal's history: content-addressed, chunked by content, read
// only when decoded.
//
//	bucket, _ := payloads.NewDirBucket("/var/lib/agents/payloads") // or contrib/blob: s3://, gs://, azblob://
//	store, _ := payloads.NewStore(payloads.Options{Bucket: bucket})
//	opts, _ := store.ClientOptions(client.Options{HostPort: "localhost:7233"})
//	c, _ := client.Dial(opts) // workers made from c store and read through it too
//	kit, _ := interceptors.NewPlugin(interceptors.Options{})
//	w := worker.New(c, "agents", worker.Options{Plugins: []worker.Plugin{kit}})
//
// # Why
//
// A model is stateless: an agent sends the whole conversation with every
// model call and appends every tool's output and reply. Inline, the payload
// grows Δ per turn and history Δ·n²/2: with 50 KB tool outputs a run is
// terminated at turn 42, its model input over the server's 2 MiB payload
// limit, and continuing as new cannot carry the conversation either.
//
// # What is stored, and what history holds
//
// The SDK's external storage hook (client.Options.ExternalStorage, a
// converter.StorageDriver; experimental in the SDK, and every use of it is in
// sdk.go) hands the store every payload of Options.Threshold bytes or more
// (4 KiB by default). The store cuts the payload's data where its content
// says (Rabin fingerprints, 2–64 KiB chunks, about 6 KiB on average) and
// writes each chunk once, under the SHA-256 of its bytes. The list of chunks
// is itself a tree of small nodes cut by content the same way, so a
// conversation that grew by one turn shares every chunk and every node with
// the last one except at its right edge: a turn writes what it added, one
// chunk that the old end cut short and a few nodes. History holds a claim of
// about 200 bytes per stored payload, whatever its size: the root node's
// hash, the length, and the payload's metadata. The payload's length is
// never chunked with its data, so a growing payload does not rewrite its
// first chunk.
//
// # Reads
//
// Retrieve (the SDK calls it for every claim of a workflow task's new
// events) reads nothing: it hands the claim on as a payload of encoding
// StoredEncoding, and the Store's DataConverter fetches it when something
// decodes it. A workflow task thus reads the activity results its code
// decodes, never the inputs it scheduled (the whole conversation, every
// turn), and a replay reads what the workflow decodes, once, as it goes.
// A replay's memory is bounded too, when it is the kit's
// (testsuite.ReplayFile, ReplayDir, RecordAndReplay): the SDK's replayer
// (v1.51.0) replays a history as one workflow task and keeps every command
// the workflow code makes until its end, the whole conversation every
// turn (n² bytes), so the kit's replay leaves each payload of more than 64
// KiB that the workflow encodes out of those commands, which the SDK
// compares with the history by type and ID, never by input. Measured
// (BENCHMARKS.md): 1,000 turns of 50 KB replay at a peak heap of 1.07× the
// live worker's, where the same replay without it passed 23 GB.
// Chunks and nodes are cached in memory up to Options.CacheBytes (64 MiB by
// default), shared by the store's reads and writes, and the conversations
// decoded from the store (below) up to the same figure, apart from them; a
// worker keeps nothing else. Every object read is checked against its hash
// and every payload against its length: a lost chunk is a *MissingError
// naming the store and the object, an altered one a *CorruptError, and
// nothing is decoded from either. In a workflow task the error fails the task
// (converter.NewWorkflowTaskFailureError), so workflow code never mistakes a
// lost chunk for an activity's failure; the server retries the task.
//
// # Conversations by reference
//
// The store's DataConverter also carries conversation.Log, the conversation
// an agent re-sends to its model every turn, by reference. When it encodes a
// value that holds a Log (an argument, or an exported field of one), it
// first writes the segments the Log appended since it was last encoded:
// each segment's bytes stored as any payload is (chunked by content, so a
// tool output that is also a stored activity result shares its chunks),
// then a small index object under segments/ named by the segment's SHA-256,
// which names the bytes and the segment before. The Log's encoding is then
// its head and length, about 150 bytes, whatever the conversation's size.
// When it decodes a Log it gives the Log the store, from which Messages
// reads the segments the cache does not hold, each checked against its
// name; the decoded conversations are cached apart from the chunks, up to
// Options.CacheBytes, so the next turn's call decodes what that turn added.
// A write that fails fails the encoding (in a workflow task, the task, which
// the server retries), and the Log keeps what it could not write.
//
// # Codecs
//
// A codec on the DataConverter (encryption, compression) runs before the
// store sees the payload: the store still works, but an encrypted payload
// shares no chunk with the last turn's, so nothing is deduplicated. Give the
// codec to Options.Codec instead: it encodes every object after
// deduplication. Object names are then the SHA-256 of the plaintext, which
// tells a reader of the bucket which objects are equal, nothing more.
//
// # Readers without the store
//
// The driver is handed out only with the DataConverter (ClientOptions,
// ReplayerOptions, Configure). A client or worker with no external storage
// driver fails on a claim with the SDK's "[TMPRL1105] Externally stored
// payload encountered but no storage driver is configured" (the SDK's text:
// the claim in history names the driver, Options.Name); one with another
// driver with `no storage driver registered with name
// "temporaladk-payloads"`. A worker fails its workflow task, which the
// server retries until a worker with the store takes it; a client's call
// returns the error. Neither decodes anything. A Log is the exception that
// names the store: its encoding is small enough to be inline, and its
// Messages, without the store that holds it, fails with "the conversation's
// earlier messages are in the kit's payload store "temporaladk-payloads" ...".
// The SDK's text for a client with no driver at all cannot be made to name
// the store: the SDK fails before any converter runs, and a worker's
// external storage is its client's, which the kit's plugin cannot give a
// driver.
//
// # A worker that takes a run over
//
// A worker that takes a run over (a deploy, or a sticky task that waited
// past its schedule-to-start timeout) replays the whole run in one workflow
// task. The SDK (v1.51.0) matches each command the replayed code makes with
// history by activity or workflow ID and type, never by input, and sends it
// nowhere, but it encodes the input and keeps the command until the task
// ends; so the kit's interceptor hands it a stand-in for the input of every
// activity and child workflow the code schedules while it replays (the
// server's copy is what the activity or child gets). The new worker encodes
// none of the conversation again: taking over an agent that re-sent a
// growing conversation for 12 turns of 32 KiB, it encoded 394 KB, the last
// call's whole conversation once, where the replayed calls' inputs came to
// 2.95 MB (interceptors' TestIntegrationTakeoverEncodesNoReplayedInput; the
// square of the turns without the stand-in). A local activity keeps its
// input, since one whose marker is not in history yet runs again from it;
// a worker without the kit's plugin encodes every input again. A
// conversation.Log such a call carried keeps what it appended while the
// workflow replays, and the first live call hands it over: the store holds a
// segment only after the ones before it, so checking the newest segments
// first, it finds what the first worker wrote with one check, and writes
// only what the live call added (taking over at turn 40 of 50 KB tool
// outputs, the new worker encodes less than one tool output and checks at
// most 4 objects: TestTakeoverByANewWorkerEncodesOneTurn). BENCHMARKS.md
// ("A takeover by a new worker process") measures a worker process killed
// at turn 1,000 and the new process's first workflow task. A replay still
// runs the workflow code of every turn, decoding each tool output and
// appending it to the conversation.Log again: conversation.ShouldContinueAsNew
// bounds what a run appends (conversation.DefaultReplayByteLimit) so that
// the replay fits in the default WorkflowTaskTimeout; a replay that outlasts
// it times out, and the next attempt replays from the start again, so the
// run moves on only when an attempt happens to fit.
//
// # Garbage collection
//
// Collect deletes the objects that no run the namespace still holds
// references and that were written more than CollectOptions.Grace ago;
// LiveRefs reads what the runs reference from their histories, never from
// the bucket. A stored payload is referenced by its claim, and keeps its
// tree of nodes and chunks. A conversation log (conversation.Log) is
// referenced by its head: when the store's DataConverter encodes a payload
// that holds logs, it records their heads in the payload's metadata
// ("temporaladk-logs", outside any codec of the parent DataConverter, and
// kept in the claim when the payload is stored), so LiveRefs finds every log
// the store handed over without decoding a payload. Collect reads each live
// segment's index once to follow the chain to the log's first (an index
// names the segment before it and the tree of the segment's bytes, whose
// nodes it reads as a stored payload's), and keeps a segment
// that a segment written within the grace extends (a turn whose head has not
// reached history yet). A live ref whose tree or a live log whose chain is
// incomplete, and a record of logs that does not parse, stop the collection
// before it deletes anything. A log the store's DataConverter never
// recorded is not kept: what a log handed over only in a Query's result
// wrote is deleted once the grace has passed and no history holds its
// head. The log's next hand-over then finds what it wrote before gone, and
// fails the workflow task, naming the segment; the task's retry replays
// the run, whose Appends bring those messages back, and writes them again.
// A log in an interface field, which is encoded whole and never decoded
// back as a log, references nothing.
//
// ARCHITECTURE.md lists the driver names and encodings the store writes
// with every other name the kit puts on the wire.
package payloads
