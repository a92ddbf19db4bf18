import type { MikroORM } from '@mikro-orm/postgresql';
import type { Form } from '../domain/form.js';
import type { OutgoingSubmission, Submission, WebhookStatus } from '../domain/submission.js';
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
      const row = fork.create(FormSubmissionEntity, { form: form.id, ...submission });
      await fork.flush();
      return toSubmission(row, form.formKey);
    },

    /** Newest first. */
    async ofForm(form: Form, limit: number): Promise<Submission[]> {
      const rows = await em().find(FormSubmissionEntity, { form: form.id }, { orderBy: { receivedAt: 'desc' }, limit });
      return rows.map((r) => toSubmission(r, form.formKey));
    },

    async outgoing(id: string): Promise<OutgoingSubmission | undefined> {
      const row = await em().findOne(FormSubmissionEntity, { id }, { populate: ['form', 'form.site'] });
      return row ? { ...toSubmission(row, row.form.formKey), siteKey: row.form.site.siteKey, webhookUrl: row.form.webhookUrl ?? null } : undefined;
    },

    async recordWebhookAttempt(id: string, attempt: { attempts: number; status: WebhookStatus; lastError: string | null }): Promise<void> {
      await em().nativeUpdate(FormSubmissionEntity, { id }, { webhookAttempts: attempt.attempts, webhookStatus: attempt.status, webhookLastError: attempt.lastError });
    },
  };
}

export type SubmissionStore = ReturnType<typeof createSubmissionStore>;
