import { Agenda } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { Logger } from './logger.js';
import { settlesWithin, withAdvisoryLock } from './db/database.js';
import { isDependencyDown } from './failures.js';

export type { Agenda };
export type { Job } from 'agenda';

export interface JobsOptions {
  url: string;
  /** Worker name recorded on the jobs it locks. */
  name: string;
  log: Logger;
  /** How often due jobs are looked for, in ms (new jobs also arrive by LISTEN/NOTIFY, except on PGlite). Default 1000. */
  processEveryMs?: number;
  /** Lock lifetime in ms; a crashed worker's jobs are taken over after it. Default 60000. */
  lockLifetimeMs?: number;
}

/**
 * One warning when the job store goes away and one line when it is back, however many errors
 * the pool, the scheduler's polling and the LISTEN channel report in between (the channel of
 * @agendajs/postgres-backend retries every 100 ms: it resets its own backoff on each attempt).
 */
function outageReport(log: Logger) {
  let since: number | undefined;
  let suppressed = 0;
  return {
    failed(source: string, error: Error): boolean {
      if (!isDependencyDown(error)) return false;
      if (since !== undefined) {
        suppressed++;
        return true;
      }
      since = Date.now();
      log.warn({ dependency: 'postgres', source, reason: error.message }, 'job store unavailable; jobs wait until it is back');
      return true;
    },
    recovered() {
      if (since === undefined) return;
      log.info({ dependency: 'postgres', downMs: Date.now() - since, suppressedErrors: suppressed }, 'job store available again');
      since = undefined;
      suppressed = 0;
    },
  };
}

/**
 * agenda on PostgreSQL (table `agenda_jobs`). Each service defines only its own job names,
 * so several services can share the table without running each other's jobs.
 */
export async function createJobs(options: JobsOptions): Promise<{ agenda: Agenda; close(drainMs?: number): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: options.url, max: 4 });
  const outage = outageReport(options.log);
  let closing = false;
  // An idle client dropped by the server (restart, failover) must not crash the process.
  pool.on('error', (error) => outage.failed('pool', error) || options.log.warn({ err: error }, 'job store connection lost; it will reconnect'));
  // agenda creates its tables as it is constructed; two at once race on CREATE TABLE, so
  // construction is serialised across processes by an advisory lock.
  const { agenda, backend } = await withAdvisoryLock(options.url, 'svc-agenda-schema', async () => {
    const backend = new PostgresBackend({ pool, tableName: 'agenda_jobs' });
    // The LISTEN channel re-emits connection errors; unheard, a PostgreSQL restart would crash
    // the process. It reconnects by itself, so the outage is reported once.
    backend.notificationChannel?.on('error', (error: Error) => outage.failed('notifications', error) || options.log.warn({ err: error }, 'job notification channel error'));
    backend.notificationChannel?.on('stateChange', (state: string) => {
      if (state !== 'connected') return;
      // A reconnect that was under way when close() disconnected the channel finishes afterwards
      // and holds a pool client for LISTEN: it is let go at once, so the pool can end.
      if (closing) void backend.notificationChannel?.disconnect().catch(() => undefined);
      else outage.recovered();
    });
    const instance = new Agenda({
      backend,
      name: options.name,
      // A number: agenda parses strings with human-interval, where '500 milliseconds' means 500 s.
      processEvery: options.processEveryMs ?? 1000,
      defaultLockLifetime: options.lockLifetimeMs ?? 60_000,
    });
    await instance.ready;
    return { agenda: instance, backend };
  });
  agenda.on('error', (error: Error) => outage.failed('scheduler', error) || options.log.error({ err: error }, 'job scheduler error'));
  // Each agenda also hears, over PostgreSQL notifications, the failures of every other agenda on
  // the table (other services, other processes), as (message, notification, true) with no job.
  // Those are logged where they ran; reading `job.attrs` of one threw and ended the process.
  agenda.on('fail', (error: Error | string, job: { attrs?: { name: string; data: unknown } }, remote?: boolean) => {
    if (remote || !job?.attrs) return;
    options.log.error({ err: error, job: job.attrs.name, data: job.attrs.data }, 'job failed');
  });
  return {
    agenda,
    /**
     * Graceful stop: lets running jobs finish (up to `drainMs`) before disconnecting.
     * agenda's stop() alone would keep running jobs' locks, so another worker could take them
     * over only after the lock lifetime.
     */
    async close(drainMs = 20_000) {
      const drained = await agenda.drain(drainMs);
      if (drained.timedOut) options.log.warn({ running: drained.running }, 'jobs still running at shutdown; their locks lapse after the lock lifetime');
      // After an outage agenda's LISTEN channel may still hold (or be taking) a client: it is let
      // go now, or as soon as a reconnect under way completes (above); a shutdown does not wait
      // for it more than 5 s.
      closing = true;
      await backend.notificationChannel?.disconnect().catch(() => undefined);
      if (!(await settlesWithin(pool.end(), 5000))) options.log.warn({ waitedMs: 5000 }, 'job store pool still had connections in use at shutdown; abandoned them');
    },
  };
}
