// Reads a live stream with the AI SDK's own client, as useChat does: the
// transport useChat resumes a stream with (DefaultChatTransport's
// reconnectToStream, which validates every part against the SDK's schema),
// and readUIMessageStream to assemble the message. Prints the message's
// last state as JSON.
//
// Usage: node read.mjs URL AUTHORIZATION [CUT]
//
// With CUT, the first connection reads CUT events of the stream as plain
// SSE and is cut off; the transport then reconnects with the last event's
// id as Last-Event-ID, and the message is assembled from the parts of both
// connections, as a client that lost its connection mid-stream sees it.
import { DefaultChatTransport, readUIMessageStream } from 'ai';

const [url, authorization, cutArg] = process.argv.slice(2);

// firstEvents reads n SSE events of url and cuts the connection: their
// parts, and the last one's id.
async function firstEvents(n) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { Authorization: authorization }, signal: controller.signal });
  if (res.status !== 200) {
    throw new Error(`first connection: status ${res.status}`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts = [];
  let buffer = '';
  let lastId = '';
  while (parts.length < n) {
    const { done, value } = await reader.read();
    if (done) {
      throw new Error(`the stream ended after ${parts.length} of ${n} events`);
    }
    buffer += decoder.decode(value, { stream: true });
    let end;
    while (parts.length < n && (end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let id = '';
      let data = '';
      for (const line of event.split('\n')) {
        if (line.startsWith('id: ')) id = line.slice(4);
        if (line.startsWith('data: ')) data = line.slice(6);
      }
      if (data === '' || data === '[DONE]') continue;
      parts.push(JSON.parse(data));
      lastId = id;
    }
  }
  controller.abort();
  return { parts, lastId };
}

let first = { parts: [], lastId: '' };
if (cutArg !== undefined) {
  first = await firstEvents(Number(cutArg));
}
const headers = { Authorization: authorization };
if (first.lastId !== '') {
  headers['Last-Event-ID'] = first.lastId;
}
const transport = new DefaultChatTransport({
  api: url,
  prepareReconnectToStreamRequest: () => ({ api: url, headers }),
});
const rest = await transport.reconnectToStream({ chatId: 'live' });
if (rest === null) {
  throw new Error('no stream: the handler answered 204');
}
const stream = new ReadableStream({
  async start(controller) {
    for (const part of first.parts) controller.enqueue(part);
    const reader = rest.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      controller.enqueue(value);
    }
    controller.close();
  },
});
let last;
for await (const message of readUIMessageStream({
  stream,
  terminateOnError: true,
  onError: (error) => { throw error; },
})) {
  last = message;
}
process.stdout.write(JSON.stringify(last));
