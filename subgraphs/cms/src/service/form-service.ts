import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { requireAuthor } from './access.js';
import { SvcError, type Cache, type Logger, type Principal } from '@svc/kit';
import { checkFormDefinition, type FormDefinition, type FormField, type FieldType } from '../domain/form-definition.js';
import { checkSiteKey } from '../domain/slug.js';
import { validateSubmission } from '../domain/validate-submission.js';
import type { DefineFormInput, Form, FormSubmission, SubmissionReceipt } from '../schema/form-types.js';
import { FormEntity, FormSubmissionEntity, SiteEntity } from '../store/entities.js';

export interface WebhookQueue {
  /** Durably queues delivery of a stored submission to its form's webhook. */
  enqueue(submissionId: string): Promise<void>;
}

export interface FormServiceDeps {
  orm: MikroORM;
  cache: Cache;
  webhooks: WebhookQueue;
  /** Submissions per client per form per minute when the form sets none. */
  defaultRateLimitPerMinute: number;
  log: Logger;
}

type FormRow = { id: string; formKey: string; name: string; fields: FormField[]; honeypotField?: string | null; webhookUrl?: string | null; rateLimitPerMinute?: number | null };

function toForm(row: FormRow, siteKey: string): Form {
  return { ...row, siteKey, fields: row.fields.map((f) => ({ ...f, maxLength: f.maxLength ?? null, pattern: f.pattern ?? null, options: f.options ?? null, label: f.label ?? null })) };
}

function toDefinition(row: FormRow): FormDefinition {
  return { formKey: row.formKey, name: row.name, fields: row.fields, honeypotField: row.honeypotField ?? undefined, webhookUrl: row.webhookUrl ?? undefined, rateLimitPerMinute: row.rateLimitPerMinute ?? undefined };
}

export function createFormService(deps: FormServiceDeps) {
  const { orm, cache, log } = deps;

  async function site(siteKey: string) {
    const found = await orm.em.fork().findOne(SiteEntity, { siteKey });
    if (!found) throw new SvcError('NOT_FOUND', `No site with key ${JSON.stringify(siteKey)}`, { slug: 'site-not-found', title: 'Site Not Found' });
    return found;
  }

  return {
    async define(principal: Principal | undefined, input: DefineFormInput): Promise<Form> {
      checkSiteKey(input.siteKey);
      requireAuthor(principal, input.siteKey);
      const definition = checkFormDefinition({
        formKey: input.formKey,
        name: input.name,
        fields: input.fields.map((f) => ({
          name: f.name,
          type: f.type as FieldType,
          required: f.required,
          ...(f.maxLength != null ? { maxLength: f.maxLength } : {}),
          ...(f.pattern != null ? { pattern: f.pattern } : {}),
          ...(f.options != null ? { options: f.options } : {}),
          ...(f.label != null ? { label: f.label } : {}),
        })),
        honeypotField: input.honeypotField ?? undefined,
        webhookUrl: input.webhookUrl ?? undefined,
        rateLimitPerMinute: input.rateLimitPerMinute ?? undefined,
      });
      const owner = await site(input.siteKey);
      const em = orm.em.fork();
      try {
        const existing = await em.findOne(FormEntity, { site: owner.id, formKey: definition.formKey });
        const values = {
          name: definition.name,
          fields: definition.fields,
          honeypotField: definition.honeypotField ?? null,
          webhookUrl: definition.webhookUrl ?? null,
          rateLimitPerMinute: definition.rateLimitPerMinute ?? null,
        };
        const row = existing ? em.assign(existing, values) : em.create(FormEntity, { site: owner, formKey: definition.formKey, ...values });
        await em.flush();
        return toForm(row, input.siteKey);
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) throw new SvcError('CONFLICT', `Form ${definition.formKey} was defined concurrently; retry`);
        throw error;
      }
    },

    async get(principal: Principal | undefined, siteKey: string, formKey: string): Promise<Form> {
      requireAuthor(principal, siteKey);
      const owner = await site(siteKey);
      const row = await orm.em.fork().findOne(FormEntity, { site: owner.id, formKey });
      if (!row) throw new SvcError('NOT_FOUND', `Site ${JSON.stringify(siteKey)} has no form ${JSON.stringify(formKey)}`, { slug: 'form-not-found', title: 'Form Not Found' });
      return toForm(row, siteKey);
    },

    async submissions(principal: Principal | undefined, siteKey: string, formKey: string, limit: number): Promise<FormSubmission[]> {
      requireAuthor(principal, siteKey);
      const owner = await site(siteKey);
      const em = orm.em.fork();
      const form = await em.findOne(FormEntity, { site: owner.id, formKey });
      if (!form) throw new SvcError('NOT_FOUND', `Site ${JSON.stringify(siteKey)} has no form ${JSON.stringify(formKey)}`, { slug: 'form-not-found', title: 'Form Not Found' });
      const rows = await em.find(FormSubmissionEntity, { form: form.id }, { orderBy: { receivedAt: 'desc' }, limit: Math.min(Math.max(limit, 1), 500) });
      return rows.map((r) => ({ id: r.id, formKey, data: r.data, spam: r.spam, receivedAt: r.receivedAt, webhookStatus: r.webhookStatus, webhookAttempts: r.webhookAttempts }));
    },

    /**
     * Rate-limits per client, validates every field, stores the submission, and only then
     * answers; the webhook is queued durably and never delays the response.
     */
    async submit(siteKey: string | undefined, formKey: string, data: Record<string, unknown>, clientIp: string | undefined): Promise<SubmissionReceipt> {
      if (!siteKey) throw new SvcError('BAD_USER_INPUT', 'The X-Svc-Site-Key header is required', { slug: 'site-key-required' });
      const owner = await site(siteKey);
      const em = orm.em.fork();
      const form = await em.findOne(FormEntity, { site: owner.id, formKey });
      if (!form) throw new SvcError('NOT_FOUND', `Site ${JSON.stringify(siteKey)} has no form ${JSON.stringify(formKey)}`, { slug: 'form-not-found', title: 'Form Not Found' });
      const limit = form.rateLimitPerMinute ?? deps.defaultRateLimitPerMinute;
      const window = await cache.hit(`cms:rate:${owner.id}:${formKey}:${clientIp ?? 'unknown'}`, 60);
      if (window.count > limit) {
        throw new SvcError('RATE_LIMITED', `Too many submissions to form ${formKey}: at most ${limit} per minute per client; retry in ${window.resetInSeconds} s`, {
          slug: 'rate-limited',
          title: 'Too Many Requests',
          retryAfter: Math.max(1, window.resetInSeconds),
        });
      }
      const checked = validateSubmission(toDefinition(form), data);
      const forward = !!form.webhookUrl && !checked.spam;
      const row = em.create(FormSubmissionEntity, { form, data: checked.values, spam: checked.spam, clientIp: clientIp ?? null, webhookStatus: forward ? 'PENDING' : 'NONE' });
      await em.flush();
      if (checked.spam) log.info({ submissionId: row.id, formKey, siteKey }, 'honeypot filled: submission stored as spam');
      if (forward) {
        await deps.webhooks.enqueue(row.id).catch((error: unknown) => log.error({ err: error, submissionId: row.id }, 'could not queue webhook; the submission stays PENDING'));
      }
      return { submissionId: row.id, receivedAt: row.receivedAt.toISOString() };
    },
  };
}

export type FormService = ReturnType<typeof createFormService>;
