import { Agenda } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import pg from 'pg';
import type { Logger } from './logger.js';

export type { Agenda };
export type { Job } from 'agenda';

export interface JobsOptions {
  url: string;
  /** Worker name recorded on the jobs it locks. */
  name: string;
  log: Logger;
  /** How often due jobs are looked for (new jobs also arrive by LISTEN/NOTIFY). Default '2 seconds'. */
  processEvery?: string;
  /** Lock lifetime in ms; a crashed worker's jobs are taken over after it. Default 60000. */
  lockLifetimeMs?: number;
}

/**
 * agenda on PostgreSQL (table `agenda_jobs`). Each service defines only its own job names,
 * so several services can share the table without running each other's jobs.
 */
export function createJobs(options: JobsOptions): { agenda: Agenda; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: options.url, max: 4 });
  const agenda = new Agenda({
    backend: new PostgresBackend({ pool, tableName: 'agenda_jobs' }),
    name: options.name,
    processEvery: options.processEvery ?? '2 seconds',
    defaultLockLifetime: options.lockLifetimeMs ?? 60_000,
  });
  agenda.on('error', (error: Error) => options.log.error({ err: error }, 'job scheduler error'));
  agenda.on('fail', (error: Error, job: { attrs: { name: string; data: unknown } }) =>
    options.log.error({ err: error, job: job.attrs.name, data: job.attrs.data }, 'job failed'),
  );
  return {
    agenda,
    async close() {
      await agenda.stop();
      await pool.end();
    },
  };
}
