import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedAlert {
  headers: IncomingHttpHeaders;
  /** The body exactly as sent (signatures are computed over it). */
  raw: string;
  body: any;
  /** When the request arrived and when it was answered (ms since the epoch). */
  at: number;
  answeredAt?: number;
}

/** How to answer one delivery: the HTTP status and an optional delay before answering. */
export interface AlertAnswer {
  status: number;
  delayMs?: number;
}

/**
 * A local budget-alert webhook standing for the outside world. Unlike `startWebhookReceiver`
 * (which counts attempts per `submissionId`), attempts are counted per alert `event`, and each
 * answer can be delayed: `plan[event][n]` answers the n-th delivery of that event (then 200).
 */
export async function startAlertReceiver(plan: Record<string, AlertAnswer[]> = {}) {
  const received: ReceivedAlert[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const event = String(body?.event ?? '');
      const earlier = received.filter((r) => r.body?.event === event).length;
      const entry: ReceivedAlert = { headers: req.headers, raw, body, at: Date.now() };
      received.push(entry);
      const answer = plan[event]?.[earlier] ?? { status: 200 };
      setTimeout(() => {
        entry.answeredAt = Date.now();
        res.statusCode = answer.status;
        res.end();
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/budget-hook`,
    received,
    of: (event: string) => received.filter((r) => r.body?.event === event),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
