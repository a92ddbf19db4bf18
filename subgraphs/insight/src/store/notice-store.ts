import type { MikroORM } from '@svc/kit';
import type { Row } from './rows.js';

export type NoticeStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface ReviewNotice {
  jobId: string;
  status: NoticeStatus;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

const toNotice = (r: Row): ReviewNotice => ({
  jobId: String(r.job_id),
  status: r.status as NoticeStatus,
  attempts: Number(r.attempts),
  lastError: (r.last_error as string | null) ?? null,
  createdAt: new Date(r.created_at as string),
  deliveredAt: r.delivered_at ? new Date(r.delivered_at as string) : null,
});

/** The reviewers' webhook outbox: one notice per job with proposals, written with its report. */
export function createNoticeStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    async get(jobId: string): Promise<ReviewNotice | undefined> {
      const [row] = await em().execute<Row[]>('select * from insight.review_notice where job_id = ?', [jobId]);
      return row ? toNotice(row) : undefined;
    },

    /** Records one attempt; PENDING notices wait for `nextAttemptAt`. */
    async recordAttempt(jobId: string, attempt: { attempts: number; status: NoticeStatus; lastError: string | null; nextAttemptAt: Date | null }): Promise<void> {
      await em().execute(
        `update insight.review_notice set attempts = ?, status = ?, last_error = ?, next_attempt_at = coalesce(?, next_attempt_at),
           delivered_at = case when ? = 'DELIVERED' then now() else delivered_at end
         where job_id = ?`,
        [attempt.attempts, attempt.status, attempt.lastError, attempt.nextAttemptAt, attempt.status, jobId],
      );
    },

    /** PENDING notices due more than `graceMs` ago: their queue entry was lost (a crash after the report). */
    async overdue(graceMs: number): Promise<string[]> {
      const rows = await em().execute<Row[]>(
        `select job_id from insight.review_notice where status = 'PENDING' and next_attempt_at < now() - make_interval(secs => ?) order by next_attempt_at limit 100`,
        [graceMs / 1000],
      );
      return rows.map((r) => String(r.job_id));
    },
  };
}

export type NoticeStore = ReturnType<typeof createNoticeStore>;
