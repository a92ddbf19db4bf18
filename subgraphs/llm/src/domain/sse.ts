/**
 * Server-Sent Events, both directions.
 *
 * Reading is `eventsource-parser`'s (the WHATWG event-stream rules: CRLF, LF and lone CR line
 * endings, also across chunks; comments; `data:` lines joined with "\n"; one space after the
 * colon dropped; an event dispatched on a blank line only when it has data). What is ours: the
 * bytes are decoded as UTF-8 across chunk boundaries (a leading BOM dropped), a stream is
 * cancelled when its reader stops early, and one deliberate leniency: the spec discards an event
 * still pending when the stream ends without a final blank line; some upstreams end exactly like
 * that, so such an event is dispatched instead. And one limit: an event (its unfinished line plus
 * the data lines gathered so far) may hold at most `maxEventChars` characters; past that the
 * stream is not read further and the loop throws, so an upstream that never ends a line or an
 * event cannot fill the gateway's memory.
 */
import { createParser } from 'eventsource-parser';

/** The most characters one event may hold: a chat chunk is a few hundred, a streamed image or audio part a few MB. */
export const MAX_SSE_EVENT_CHARS = 8 * 1024 * 1024;

export interface SseEvent {
  /** The `event:` field, when the server sent one. */
  event?: string;
  data: string;
}

/**
 * Parses an SSE body into events. Breaking out of the loop cancels the underlying stream, and so
 * does an event over `maxEventChars` (the events before it are yielded, then the loop throws).
 */
export async function* parseSse(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, maxEventChars = MAX_SSE_EVENT_CHARS): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: ({ event, data }) => void ready.push(event === undefined ? { data } : { event, data }),
    // Unknown fields and bad `retry:` values are ignored, as the spec says.
    onError: (error) => void (error.type === 'max-buffer-size-exceeded' && (tooLarge = true)),
  });
  const decoder = new TextDecoder('utf-8');
  // A ReadableStream's async iterator cancels the stream when the loop is left early.
  for await (const chunk of body) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') parser.feed(text);
    while (ready.length) yield ready.shift()!;
    if (tooLarge) throw new Error(`an event longer than ${maxEventChars} characters, not read further`);
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
