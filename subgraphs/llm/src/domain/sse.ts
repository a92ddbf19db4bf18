/**
 * Server-Sent Events, both directions.
 *
 * Reading is `eventsource-parser`'s (the WHATWG event-stream rules: CRLF, LF and lone CR line
 * endings, also across chunks; comments; `data:` lines joined with "\n"; one space after the
 * colon dropped; an event dispatched on a blank line only when it has data). What is ours: the
 * bytes are decoded as UTF-8 across chunk boundaries (a leading BOM dropped), a stream is
 * cancelled when its reader stops early, and one deliberate leniency: the spec discards an event
 * still pending when the stream ends without a final blank line; some upstreams end exactly like
 * that, so such an event is dispatched instead.
 */
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  /** The `event:` field, when the server sent one. */
  event?: string;
  data: string;
}

/** Parses an SSE body into events. Breaking out of the loop cancels the underlying stream. */
export async function* parseSse(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  const parser = createParser({ onEvent: ({ event, data }) => void ready.push(event === undefined ? { data } : { event, data }) });
  const decoder = new TextDecoder('utf-8');
  // A ReadableStream's async iterator cancels the stream when the loop is left early.
  for await (const chunk of body) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') parser.feed(text);
    while (ready.length) yield ready.shift()!;
  }
  // The end of the stream ends the pending line and, leniently, the pending event.
  parser.feed(`${decoder.decode()}\n\n`);
  yield* ready;
}

/** One SSE event carrying `data` as JSON, or the literal `data: [DONE]` for the string '[DONE]'. */
export function formatSse(data: unknown): string {
  if (data === '[DONE]') return 'data: [DONE]\n\n';
  return `data: ${JSON.stringify(data)}\n\n`;
}
