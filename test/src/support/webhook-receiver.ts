import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: any;
  at: number;
}

/**
 * A local webhook endpoint standing for the outside world. For each distinct delivery (a
 * form's `submissionId`, an EXTERNAL action's `actionId`, a crawl execution's event, an analysis
 * job's `jobId`) it answers `statuses` in turn, then 200.
 */
export async function startWebhookReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const subject = (b: any) => b?.submissionId ?? b?.actionId ?? (b?.executionId ? `${b.executionId} ${b.event}` : b?.jobId);
      const earlier = received.filter((r) => subject(r.body) === subject(body)).length;
      received.push({ headers: req.headers, body, at: Date.now() });
      res.statusCode = statuses[earlier] ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
