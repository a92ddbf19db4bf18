import type { Logger } from '@svc/kit';
import type { AgendaJob } from './analysis-queue.js';

/**
 * Runs `work` while keeping the agenda job's lock: a timer touches it every third of the lock
 * lifetime, and `beat()` (called by the work between its steps) touches it when a third has
 * passed since the last touch. A worker that dies stops touching, and another takes the job over.
 */
export async function withHeartbeat(job: AgendaJob<unknown>, lockLifetimeMs: number, log: Logger, work: (beat: () => Promise<void>) => Promise<void>): Promise<void> {
  let last = Date.now();
  const beat = async () => {
    if (Date.now() - last < lockLifetimeMs / 3) return;
    last = Date.now();
    await job.touch().catch((error: unknown) => log.warn({ err: error }, 'could not extend the analysis job lock'));
  };
  const timer = setInterval(() => void beat(), Math.max(250, Math.floor(lockLifetimeMs / 3)));
  try {
    await work(beat);
  } finally {
    clearInterval(timer);
  }
}
