import { type Cache, type Logger, parseInput, SvcError } from '@svc/kit';
import { submissionBodySchema } from '../contract.js';
import type { SubmissionReceipt } from '../domain/submission.js';
import { validateSubmission } from '../domain/validate-submission.js';
import type { FormStore } from '../store/form-store.js';
import type { SiteStore } from '../store/site-store.js';
import type { SubmissionStore } from '../store/submission-store.js';
import { formNotFound } from './not-found.js';
import { requireSiteKey, siteOrFail } from './site-key.js';

export interface WebhookQueue {
  /**
   * Asks for prompt delivery of a stored submission's webhook. The stored PENDING row is what
   * makes it durable (the outbox): when this fails, the periodic sweep delivers it.
   */
  enqueue(submissionId: string): Promise<void>;
}

export interface SubmitFormDeps {
  sites: SiteStore;
  forms: FormStore;
  submissions: SubmissionStore;
  cache: Cache;
  webhooks: WebhookQueue;
  /** Submissions per client per form per minute when the form sets none. */
  defaultRateLimitPerMinute: number;
  log: Logger;
}

/** The public form endpoint. */
export function createSubmitForm(deps: SubmitFormDeps) {
  const { sites, forms, submissions, cache, log } = deps;
  return {
    /**
     * Rate-limits per client, validates every field, stores the submission, and only then
     * answers; the webhook is part of the stored row (one commit) and never delays the response.
     */
    async submit(givenSiteKey: string | undefined, formKey: string, data: Record<string, unknown>, clientIp: string | undefined): Promise<SubmissionReceipt> {
      const siteKey = requireSiteKey(givenSiteKey);
      const site = await siteOrFail(sites, siteKey);
      const form = await forms.form(site, formKey);
      if (!form) throw formNotFound(siteKey, formKey);
      const limit = form.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute;
      const window = await cache.hit(`cms:rate:${site.id}:${formKey}:${clientIp ?? 'unknown'}`, 60);
      if (window.count > limit) {
        throw new SvcError('RATE_LIMITED', `Too many submissions to form ${formKey}: at most ${limit} per minute per client; retry in ${window.resetInSeconds} s`, {
          slug: 'rate-limited',
          title: 'Too Many Requests',
          retryAfter: Math.max(1, window.resetInSeconds),
        });
      }
      const checked = validateSubmission(form, parseInput(submissionBodySchema, data, '', { describe: true }));
      const forward = !!form.webhookUrl && !checked.spam;
      const stored = await submissions.insert(form, { data: checked.values, spam: checked.spam, clientIp: clientIp ?? null, webhookStatus: forward ? 'PENDING' : 'NONE' });
      if (checked.spam) log.info({ submissionId: stored.id, formKey, siteKey }, 'honeypot filled: submission stored as spam');
      if (forward) {
        await deps.webhooks.enqueue(stored.id).catch((error: unknown) => log.warn({ err: error, submissionId: stored.id }, 'could not queue webhook; the outbox sweep delivers it'));
      }
      return { submissionId: stored.id, receivedAt: stored.receivedAt.toISOString() };
    },
  };
}

export type SubmitForm = ReturnType<typeof createSubmitForm>;
