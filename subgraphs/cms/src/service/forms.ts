import { SvcError, validationError, type OutboundHttp, type Principal } from '@svc/kit';
import { checkFormDefinition, type FormDefinition } from '../domain/form-definition.js';
import type { Form } from '../domain/form.js';
import { checkSiteKey } from '../domain/slug.js';
import type { Submission } from '../domain/submission.js';
import type { FormStore } from '../store/form-store.js';
import type { SiteStore } from '../store/site-store.js';
import type { SubmissionStore } from '../store/submission-store.js';
import { requireAuthor } from './access.js';
import { formNotFound, siteOrFail } from './not-found.js';

export interface FormsDeps {
  sites: SiteStore;
  forms: FormStore;
  submissions: SubmissionStore;
  /** Judges webhook URLs when they are set (the SSRF guard; the delivery checks them again). */
  outbound: Pick<OutboundHttp, 'refusal'>;
}

/** Defining a site's forms and reading their submissions (editors and admins of the site). */
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
  };
}

export type Forms = ReturnType<typeof createForms>;
