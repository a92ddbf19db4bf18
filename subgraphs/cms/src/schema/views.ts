import type { Form } from '../domain/form.js';
import type { Form as FormView } from './form-types.js';

// Members a form leaves out are null in GraphQL.
export const formView = (form: Form): FormView => ({
  id: form.id,
  siteKey: form.siteKey,
  formKey: form.formKey,
  name: form.name,
  fields: form.fields.map((f) => ({ ...f, maxLength: f.maxLength ?? null, pattern: f.pattern ?? null, options: f.options ?? null, label: f.label ?? null })),
  honeypotField: form.honeypotField ?? null,
  webhookUrl: form.webhookUrl ?? null,
  rateLimitPerMinute: form.rateLimitPerMinute ?? null,
});
