import type { Logger } from '@svc/kit';

/** The part of an agenda job a handler touches. */
export interface AgendaJob<T> { attrs: { data: T }; touch(progress?: number): Promise<void> }

/**
 * Runs `work` while touching the agenda job every third of the lock lifetime, so a long
 * fetch (retries, slow sites) keeps its lock and is not handed to another worker.
 */
export async function withHeartbeat(job: AgendaJob<unknown>, lockLifetimeMs: number, log: Logger, work: (beat: () => Promise<void>) => Promise<void>): Promise<void> {
  let alive = true;
  const beat = async () => {
    if (!alive) return;
    await job.touch().catch((error: unknown) => {
      alive = false;
      log.warn({ err: error }, 'could not extend the crawl job lock');
    });
  };
  const timer = setInterval(() => void beat(), Math.max(250, Math.floor(lockLifetimeMs / 3)));
  try {
    await work(beat);
  } finally {
    clearInterval(timer);
  }
}
