import type { IncomingMessage } from 'node:http';
import { SvcError } from '../errors.js';

/** Reads a request body, refusing (and stopping the read) once it passes `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): SvcError {
  return new SvcError('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${limit} bytes`, { slug: 'payload-too-large' });
}
