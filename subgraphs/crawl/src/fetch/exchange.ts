import type { IncomingHttpHeaders } from 'node:http';
import type { Got, Request as GotRequest } from 'got';
import { SvcError } from '@svc/kit';

// One HTTP GET of the page fetcher (fetch-page.ts): got in stream mode, the body read only for
// a 2xx answer and only up to the plan's byte limit (cut off, or kept truncated for robots.txt).

/** What to do with a 2xx body. */
export interface BodyPlan {
  accept: string;
  limit: number;
  /** Keep the first `limit` bytes instead of failing (robots.txt). */
  truncate: boolean;
  /** Bytes of a 4xx/5xx body kept (truncated) for the block-page rules; 0 reads none. */
  errorLimit?: number;
  /** Refuse a 2xx answer before reading it (content type check); returns the error or nothing. */
  vet?: (url: URL, headers: IncomingHttpHeaders) => SvcError | undefined;
}

export interface Answer {
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  /** The decompressed body of a 2xx answer, or the first `errorLimit` bytes of a 4xx/5xx one; empty otherwise. */
  body: Buffer;
  attempts: number;
}

export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function upstream(message: string, slug: string, details: Record<string, unknown>, extra: { cause?: unknown; retryAfter?: number } = {}): SvcError {
  return new SvcError('UPSTREAM_ERROR', message, { slug, details, ...extra });
}

/** One HTTP GET: resolves with the answer (body read for 2xx, and its head for 4xx/5xx), rejects with got's error or a SvcError. */
export function exchange(client: Got, url: URL, plan: BodyPlan): Promise<Omit<Answer, 'attempts'>> {
  return new Promise((resolve, reject) => {
    const stream: GotRequest = client.stream(url, { headers: { accept: plan.accept } });
    let settled = false;
    const finish = (error: unknown, answer?: Omit<Answer, 'attempts'>) => {
      if (settled) return;
      settled = true;
      if (error) {
        stream.destroy();
        reject(error);
      } else resolve(answer!);
    };
    stream.on('error', (error: Error) => finish(error));
    stream.once('response', (response: { statusCode: number; headers: IncomingHttpHeaders }) => {
      const { statusCode: status, headers } = response;
      const failed = status >= 400 && (plan.errorLimit ?? 0) > 0;
      if (!failed && (status < 200 || status >= 300)) {
        stream.destroy();
        finish(undefined, { url, status, headers, body: Buffer.alloc(0) });
        return;
      }
      const limit = failed ? plan.errorLimit! : plan.limit;
      const truncate = failed || plan.truncate;
      if (!failed) {
        const refusal = plan.vet?.(url, headers);
        if (refusal) return finish(refusal);
      }
      const tooLarge = () =>
        upstream(`${url.href} is larger than the ${limit}-byte limit`, 'page-too-large', { url: url.href, maxBytes: limit });
      const declared = Number(firstHeader(headers['content-length']));
      if (!truncate && Number.isFinite(declared) && declared > limit) return finish(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        if (size + chunk.length > limit) {
          if (!truncate) return finish(tooLarge());
          chunks.push(chunk.subarray(0, limit - size));
          size = limit;
          stream.destroy();
          return finish(undefined, { url, status, headers, body: Buffer.concat(chunks, size) });
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      stream.once('end', () => finish(undefined, { url, status, headers, body: Buffer.concat(chunks, size) }));
    });
  });
}
