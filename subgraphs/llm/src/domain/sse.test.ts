import { describe, expect, it } from '@jest/globals';
import { formatSse, parseSse, type SseEvent } from './sse.js';

const utf8 = new TextEncoder();

async function* chunksOf(parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? utf8.encode(part) : part;
}

async function collect(parts: (string | Uint8Array)[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of parseSse(chunksOf(parts))) out.push(event);
  return out;
}

/** Every way of cutting `text` into two chunks, plus one byte at a time. */
function splits(text: string): Uint8Array[][] {
  const bytes = utf8.encode(text);
  const out: Uint8Array[][] = [Array.from(bytes, (b) => Uint8Array.of(b))];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.slice(0, i), bytes.slice(i)]);
  return out;
}

describe('parseSse', () => {
  it('parses events separated by blank lines', async () => {
    expect(await collect(['data: {"a":1}\n\ndata: {"b":2}\n\n'])).toEqual([{ data: '{"a":1}' }, { data: '{"b":2}' }]);
  });

  it('gives the same events however the bytes are cut into chunks', async () => {
    const text = 'event: message_start\ndata: {"x":"é€😀"}\n\n: comment\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n';
    const expected = [{ event: 'message_start', data: '{"x":"é€😀"}' }, { data: 'line1\nline2' }, { data: '[DONE]' }];
    for (const parts of splits(text)) expect(await collect(parts)).toEqual(expected);
  });

  it('accepts CRLF, LF and lone CR line endings, also mixed', async () => {
    expect(await collect(['data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\n\n'])).toEqual([{ data: 'a' }, { data: 'b' }, { data: 'c' }, { data: 'd' }]);
  });

  it('treats a CR at the end of a chunk and a LF at the start of the next as one line ending', async () => {
    expect(await collect(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([{ data: 'a\nb' }]);
    for (const parts of splits('data: x\r\n\r\ndata: y\r\n\r\n')) expect(await collect(parts)).toEqual([{ data: 'x' }, { data: 'y' }]);
  });

  it('joins multi-line data with newlines and keeps empty data lines', async () => {
    expect(await collect(['data: one\ndata:\ndata: three\n\n'])).toEqual([{ data: 'one\n\nthree' }]);
  });

  it('removes exactly one space after the colon', async () => {
    expect(await collect(['data:tight\n\ndata:  two spaces\n\n'])).toEqual([{ data: 'tight' }, { data: ' two spaces' }]);
  });

  it('takes a line without colon as a field with an empty value', async () => {
    expect(await collect(['data\n\n'])).toEqual([{ data: '' }]);
  });

  it('ignores comments, id, retry and unknown fields', async () => {
    expect(await collect([': keep-alive\n\nid: 7\nretry: 1000\nfoo: bar\ndata: x\n\n:\n\n'])).toEqual([{ data: 'x' }]);
  });

  it('does not dispatch events without data, and the event name applies to one event only', async () => {
    expect(await collect(['event: ping\n\nevent: a\ndata: 1\n\ndata: 2\n\n'])).toEqual([{ event: 'a', data: '1' }, { data: '2' }]);
  });

  it('keeps colons inside the value', async () => {
    expect(await collect(['data: {"url":"http://x"}\n\n'])).toEqual([{ data: '{"url":"http://x"}' }]);
  });

  it('drops a leading byte order mark', async () => {
    expect(await collect([Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf), 'data: x\n\n'])).toEqual([{ data: 'x' }]);
  });

  it('dispatches an event left pending when the stream ends without a blank line', async () => {
    expect(await collect(['data: a\n\ndata: last'])).toEqual([{ data: 'a' }, { data: 'last' }]);
    expect(await collect(['data: a\n\nevent: x\n'])).toEqual([{ data: 'a' }]);
    expect(await collect([])).toEqual([]);
  });

  it('reads a ReadableStream and cancels it when the consumer stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(utf8.encode('data: 1\n\ndata: 2\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of parseSse(stream)) {
      expect(event).toEqual({ data: '1' });
      break;
    }
    expect(cancelled).toBe(true);
  });

  it('reads a ReadableStream to its end', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(utf8.encode('data: 1\n'));
        controller.enqueue(utf8.encode('\ndata: 2\n\n'));
        controller.close();
      },
    });
    const out: SseEvent[] = [];
    for await (const event of parseSse(stream)) out.push(event);
    expect(out).toEqual([{ data: '1' }, { data: '2' }]);
  });

  it('stops at an event over the limit (a line that never ends, or data lines without the blank line), after the events before it', async () => {
    for (const endless of ['data: ' + 'x'.repeat(100), 'data: ' + 'x'.repeat(40) + '\n']) {
      let pulled = 0;
      let cancelled = false;
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(utf8.encode(`data: ${'y'.repeat(900)}\n\n`));
        },
        pull(controller) {
          // Ends after 100 (a reader without the limit would read them all).
          if (++pulled > 100) controller.close();
          else controller.enqueue(utf8.encode(endless));
        },
        cancel() {
          cancelled = true;
        },
      });
      const out: SseEvent[] = [];
      await expect(
        (async () => {
          for await (const event of parseSse(stream, 1000)) out.push(event);
        })(),
      ).rejects.toThrow('an event longer than 1000 characters, not read further');
      expect(out).toEqual([{ data: 'y'.repeat(900) }]); // as long as allowed: passes
      expect(pulled).toBeLessThan(30);
      expect(cancelled).toBe(true);
    }
  });

  it('propagates a stream error', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield utf8.encode('data: 1\n\n');
      throw new Error('connection reset');
    }
    const out: SseEvent[] = [];
    await expect(
      (async () => {
        for await (const event of parseSse(failing())) out.push(event);
      })(),
    ).rejects.toThrow('connection reset');
    expect(out).toEqual([{ data: '1' }]);
  });
});

describe('formatSse', () => {
  it('writes JSON data events', () => {
    expect(formatSse({ a: 1, b: 'x\ny' })).toBe('data: {"a":1,"b":"x\\ny"}\n\n');
  });

  it('writes the literal [DONE] terminator', () => {
    expect(formatSse('[DONE]')).toBe('data: [DONE]\n\n');
  });

  it('round-trips through parseSse', async () => {
    const payloads = [{ id: 1, text: 'multi\nline' }, 'plain string', '[DONE]'];
    const text = payloads.map((p) => formatSse(p)).join('');
    const events = await collect([text]);
    expect(events.map((e) => (e.data === '[DONE]' ? e.data : JSON.parse(e.data)))).toEqual(payloads);
  });
});
