import { canUseSite, checkWindow, requireRole, SvcError, validationError, type OutboundHttp, type Principal } from '@svc/kit';
import { checkFormDefinition, type FormDefinition } from '../domain/form-definition.js';
import type { Form } from '../domain/form.js';
import { checkSiteKey } from '../domain/slug.js';
import type { Submission, SubmissionDay } from '../domain/submission.js';
import type { FormStore } from '../store/form-store.js';
import type { SiteStore } from '../store/site-store.js';
import type { SubmissionStore } from '../store/submission-store.js';
import { requireAuthor } from './access.js';
import { formNotFound } from './not-found.js';
import { siteOrFail } from './site-key.js';

export interface FormsDeps {
  sites: SiteStore;
  forms: FormStore;
  submissions: SubmissionStore;
  /** Judges webhook URLs when they are set (the SSRF guard; the delivery checks them again). */
  outbound: Pick<OutboundHttp, 'refusal'>;
}

/** The longest window a daily-count query may span. */
const MAX_COUNT_DAYS = 1_100;

/**
 * Defining a site's forms and reading their submissions (editors and admins of the site); daily
 * counts, which hold no submission content, also for analysts and reviewers of the site.
 */
export function createForms(deps: FormsDeps) {
  const { sites, forms, submissions, outbound } = deps;
  return {
    /** Creates or replaces the form `definition.formKey` of the site. */
    async define(principal: Principal | undefined, siteKey: string, definition: FormDefinition): Promise<Form> {
      checkSiteKey(siteKey);
      requireAuthor(principal, siteKey);
      checkFormDefinition(definition);
      const refused = definition.webhookUrl ? await outbound.refusal(definition.webhookUrl) : undefined;
      if (refused) throw validationError([{ pointer: '/webhookUrl', detail: `webhookUrl is not allowed: ${refused}` }]);
      const saved = await forms.save(await siteOrFail(sites, siteKey), definition);
      if (!saved) throw new SvcError('CONFLICT', `Form ${definition.formKey} was defined concurrently; retry`);
      return saved;
    },

    async get(principal: Principal | undefined, siteKey: string, formKey: string): Promise<Form> {
      requireAuthor(principal, siteKey);
      const form = await forms.form(await siteOrFail(sites, siteKey), formKey);
      if (!form) throw formNotFound(siteKey, formKey);
      return form;
    },

    /** Newest first; limit 1-500. */
    async submissions(principal: Principal | undefined, siteKey: string, formKey: string, limit: number): Promise<Submission[]> {
      requireAuthor(principal, siteKey);
      const form = await forms.form(await siteOrFail(sites, siteKey), formKey);
      if (!form) throw formNotFound(siteKey, formKey);
      return submissions.ofForm(form, Math.min(Math.max(limit, 1), 500));
    },

    /** Submissions per form and UTC day in [from, to), of one site or of every site the token grants. */
    async dailyCounts(principal: Principal | undefined, window: { siteKey?: string | undefined; from: Date; to: Date }): Promise<SubmissionDay[]> {
      const p = requireRole(principal, 'editor', 'analyst', 'reviewer');
      const { from, to } = checkWindow(window.from, window.to, MAX_COUNT_DAYS);
      if (window.siteKey === undefined) return submissions.daily(p.sites, from, to);
      checkSiteKey(window.siteKey);
      if (!canUseSite(p, window.siteKey)) throw new SvcError('FORBIDDEN', `Your token does not grant site ${JSON.stringify(window.siteKey)}`);
      return submissions.daily([window.siteKey], from, to);
    },
  };
}

export type Forms = ReturnType<typeof createForms>;
