// Reads a live stream with the AI SDK's own client, as useChat does: the
// transport useChat resumes a stream with (DefaultChatTransport's
// reconnectToStream, which validates every part against the SDK's schema),
// and readUIMessageStream to assemble the message. Prints the message's
// last state as JSON. Usage: node read.mjs URL AUTHORIZATION
import { DefaultChatTransport, readUIMessageStream } from 'ai';

const [url, authorization] = process.argv.slice(2);
const transport = new DefaultChatTransport({
  api: url,
  prepareReconnectToStreamRequest: () => ({ api: url, headers: { Authorization: authorization } }),
});
const stream = await transport.reconnectToStream({ chatId: 'live' });
if (stream === null) {
  throw new Error('no stream: the handler answered 204');
}
let last;
for await (const message of readUIMessageStream({
  stream,
  terminateOnError: true,
  onError: (error) => { throw error; },
})) {
  last = message;
}
process.stdout.write(JSON.stringify(last));
