import { createContext, sendStreamError, SvcError, type Logger, type Route, type TokenVerifier } from '@svc/kit';
import type { IncomingHttpHeaders } from 'node:http';
import { isFinal } from '../domain/job.js';
import type { JobService } from '../service/jobs.js';
import { stepView } from '../schema/views.js';

/** Path of a job's event stream on the insight subgraph; the bridge relays `GET /api/v1/insight/jobs/{jobId}/events` here. */
export const EVENTS_PREFIX = '/events/jobs/';

export interface EventsOptions {
  jobs: JobService;
  verifier: TokenVerifier;
  log: Logger;
  /** How often new steps are looked for. Default 200 ms. */
  pollMs?: number;
  /** Comment lines that keep proxies from closing an idle stream. Default 15 s. */
  keepAliveMs?: number;
}


/**
 * Server-Sent Events of a job: one `step` event per written step (id = step number), in
 * order, as they are written; a client that reconnects with `Last-Event-ID: n` gets the steps
 * after n, nothing missed and nothing repeated. The stream ends after the job's final STATUS
 * step (COMPLETED, FAILED or CANCELLED).
 */
export function jobEventsRoute(options: EventsOptions): Route {
  const pollMs = options.pollMs ?? 200;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  /** Who asks, whether they may see the job, and where they left off. */
  async function open(headers: IncomingHttpHeaders, url: URL, jobId: string): Promise<{ job: Awaited<ReturnType<JobService['follow']>>; after: number }> {
    const ctx = await createContext(headers, { verifier: options.verifier, log: options.log });
    if (ctx.authError) throw ctx.authError;
    const job = await options.jobs.follow(ctx, jobId);
    const last = headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? '0';
    const after = Number(Array.isArray(last) ? last[0] : last);
    if (!Number.isInteger(after) || after < 0) throw new SvcError('BAD_USER_INPUT', `Last-Event-ID ${JSON.stringify(last)} must be a step number`, { errors: [{ pointer: '/Last-Event-ID', detail: 'not a step number' }] });
    return { job, after };
  }

  return {
    method: 'GET',
    path: `${EVENTS_PREFIX}*`,
    async handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const jobId = decodeURIComponent(url.pathname.slice(EVENTS_PREFIX.length));
      let closed = false;
      res.on('close', () => {
        closed = true;
      });
      let opened: Awaited<ReturnType<typeof open>>;
      try {
        opened = await open(req.headers, url, jobId);
      } catch (error) {
        return sendStreamError(res, error, options.log, 'job event stream');
      }
      const { job } = opened;
      let { after } = opened;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
      res.write(': stream of job steps\n\n');
      let lastWrite = Date.now();
      while (!closed) {
        const steps = await job.stepsAfter(after);
        let ended = false;
        for (const step of steps) {
          res.write(`id: ${step.seq}\nevent: step\ndata: ${JSON.stringify(stepView(step))}\n\n`);
          after = step.seq;
          lastWrite = Date.now();
          if (step.kind === 'STATUS' && step.status && isFinal(step.status)) ended = true;
        }
        if (ended) break;
        if (steps.length === 0) {
          // A final status is written with its STATUS step, so a last look after it misses nothing.
          const status = await job.status();
          if ((!status || isFinal(status)) && (await job.stepsAfter(after)).length === 0) break;
          if (Date.now() - lastWrite > keepAliveMs) {
            res.write(': keep-alive\n\n');
            lastWrite = Date.now();
          }
          await new Promise((r) => setTimeout(r, pollMs));
        }
      }
      res.end();
    },
  };
}
