import type { MikroORM } from '@mikro-orm/postgresql';
import type { Form } from '../domain/form.js';
import type { OutgoingSubmission, Submission, SubmissionDay, WebhookStatus } from '../domain/submission.js';
import { FormSubmissionEntity } from './entities.js';

interface SubmissionRow {
  id: string;
  data: Record<string, string>;
  spam: boolean;
  receivedAt: Date;
  webhookStatus: string;
  webhookAttempts: number;
}

const toSubmission = (row: SubmissionRow, formKey: string): Submission => ({
  id: row.id,
  formKey,
  data: row.data,
  spam: row.spam,
  receivedAt: row.receivedAt,
  webhookStatus: row.webhookStatus as WebhookStatus,
  webhookAttempts: row.webhookAttempts,
});

/** Form submissions and the state of their webhook delivery. */
export function createSubmissionStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    async insert(form: Form, submission: { data: Record<string, string>; spam: boolean; clientIp: string | null; webhookStatus: WebhookStatus }): Promise<Submission> {
      const fork = em();
      // The outbox entry is the row itself: PENDING and due now, in the same INSERT.
      const row = fork.create(FormSubmissionEntity, { form: form.id, ...submission, webhookDueAt: submission.webhookStatus === 'PENDING' ? new Date() : null });
      await fork.flush();
      return toSubmission(row, form.formKey);
    },

    /** Newest first. */
    async ofForm(form: Form, limit: number): Promise<Submission[]> {
      const rows = await em().find(FormSubmissionEntity, { form: form.id }, { orderBy: { receivedAt: 'desc' }, limit });
      return rows.map((r) => toSubmission(r, form.formKey));
    },

    /** Submissions per site, form and UTC day in [from, to); `siteKeys` '*' for every site. */
    async daily(siteKeys: readonly string[] | '*', from: Date, to: Date): Promise<SubmissionDay[]> {
      const rows = await em().execute<Record<string, unknown>[]>(
        `select s.site_key, f.form_key, to_char(fs.received_at at time zone 'UTC', 'YYYY-MM-DD') as day,
                count(*) filter (where not fs.spam)::int as submissions, count(*) filter (where fs.spam)::int as spam
           from cms.form_submission fs join cms.form f on f.id = fs.form_id join cms.site s on s.id = f.site_id
          where fs.received_at >= ? and fs.received_at < ? and (?::boolean or s.site_key in (select jsonb_array_elements_text(?::jsonb)))
          group by 1, 2, 3 order by 3, 1, 2`,
        [from, to, siteKeys === '*', JSON.stringify(siteKeys === '*' ? [] : siteKeys)],
      );
      return rows.map((r) => ({ siteKey: String(r.site_key), formKey: String(r.form_key), day: String(r.day), submissions: Number(r.submissions), spam: Number(r.spam) }));
    },

    async outgoing(id: string): Promise<OutgoingSubmission | undefined> {
      const row = await em().findOne(FormSubmissionEntity, { id }, { populate: ['form', 'form.site'] });
      return row ? { ...toSubmission(row, row.form.formKey), siteKey: row.form.site.siteKey, webhookUrl: row.form.webhookUrl ?? null } : undefined;
    },

    /**
     * Takes a due PENDING webhook for delivery by moving its due time `leaseMs` ahead, so no
     * other worker takes it meanwhile (and it is due again if this one dies). False when it is
     * not PENDING, not due, or already taken.
     */
    async claimWebhook(id: string, leaseMs: number): Promise<boolean> {
      const now = new Date();
      const taken = await em().nativeUpdate(FormSubmissionEntity, { id, webhookStatus: 'PENDING', webhookDueAt: { $lte: now } }, { webhookDueAt: new Date(now.getTime() + leaseMs) });
      return taken === 1;
    },

    /** PENDING webhooks that are due, oldest first. */
    async dueWebhooks(limit: number): Promise<string[]> {
      const rows = await em().find(FormSubmissionEntity, { webhookStatus: 'PENDING', webhookDueAt: { $lte: new Date() } }, { fields: ['id'], orderBy: { webhookDueAt: 'asc' }, limit });
      return rows.map((r) => r.id);
    },

    /** `retryAt`: when the next attempt is due (PENDING only). */
    async recordWebhookAttempt(id: string, attempt: { attempts: number; status: WebhookStatus; lastError: string | null; retryAt?: Date }): Promise<void> {
      await em().nativeUpdate(FormSubmissionEntity, { id }, {
        webhookAttempts: attempt.attempts,
        webhookStatus: attempt.status,
        webhookLastError: attempt.lastError,
        webhookDueAt: attempt.status === 'PENDING' ? (attempt.retryAt ?? new Date()) : null,
      });
    },
  };
}

export type SubmissionStore = ReturnType<typeof createSubmissionStore>;
