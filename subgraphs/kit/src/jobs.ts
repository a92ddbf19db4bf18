import { Agenda } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { Logger } from './logger.js';
import { withAdvisoryLock } from './db/database.js';

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
 * agenda on PostgreSQL (table `agenda_jobs`). Each service defines only its own job names,
 * so several services can share the table without running each other's jobs.
 */
export async function createJobs(options: JobsOptions): Promise<{ agenda: Agenda; close(drainMs?: number): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: options.url, max: 4 });
  // An idle client dropped by the server (restart, failover) must not crash the process.
  pool.on('error', (error) => options.log.warn({ err: error }, 'job store connection lost; it will reconnect'));
  // agenda creates its tables as it is constructed; two at once race on CREATE TABLE, so
  // construction is serialised across processes by an advisory lock.
  const agenda = await withAdvisoryLock(options.url, 'svc-agenda-schema', async () => {
    const backend = new PostgresBackend({ pool, tableName: 'agenda_jobs' });
    // The LISTEN channel re-emits connection errors; unheard, a PostgreSQL restart would crash
    // the process. It reconnects by itself, so a warning is enough.
    backend.notificationChannel?.on('error', (error: Error) => options.log.warn({ err: error }, 'job notification channel lost its connection; reconnecting'));
    const instance = new Agenda({
      backend,
      name: options.name,
      // A number: agenda parses strings with human-interval, where '500 milliseconds' means 500 s.
      processEvery: options.processEveryMs ?? 1000,
      defaultLockLifetime: options.lockLifetimeMs ?? 60_000,
    });
    await instance.ready;
    return instance;
  });
  agenda.on('error', (error: Error) => options.log.error({ err: error }, 'job scheduler error'));
  agenda.on('fail', (error: Error, job: { attrs: { name: string; data: unknown } }) =>
    options.log.error({ err: error, job: job.attrs.name, data: job.attrs.data }, 'job failed'),
  );
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
      await pool.end();
    },
  };
}
