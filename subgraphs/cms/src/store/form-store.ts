import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import type { FormDefinition, FormField } from '../domain/form-definition.js';
import type { Form } from '../domain/form.js';
import type { Site } from '../domain/site.js';
import { FormEntity } from './entities.js';

interface FormRow {
  id: string;
  formKey: string;
  name: string;
  fields: FormField[];
  honeypotField?: string | null;
  webhookUrl?: string | null;
  rateLimitPerMinute?: number | null;
}

function toForm(row: FormRow, siteKey: string): Form {
  return {
    id: row.id,
    siteKey,
    formKey: row.formKey,
    name: row.name,
    fields: row.fields,
    honeypotField: row.honeypotField ?? undefined,
    webhookUrl: row.webhookUrl ?? undefined,
    rateLimitPerMinute: row.rateLimitPerMinute ?? undefined,
  };
}

/** Form definitions, one per site and form key. */
export function createFormStore(orm: MikroORM) {
  return {
    async form(site: Site, formKey: string): Promise<Form | undefined> {
      const row = await orm.em.fork().findOne(FormEntity, { site: site.id, formKey });
      return row ? toForm(row, site.siteKey) : undefined;
    },

    /** Creates or replaces the site's form; undefined when another request created it meanwhile. */
    async save(site: Site, definition: FormDefinition): Promise<Form | undefined> {
      const em = orm.em.fork();
      try {
        const existing = await em.findOne(FormEntity, { site: site.id, formKey: definition.formKey });
        const values = {
          name: definition.name,
          fields: definition.fields,
          honeypotField: definition.honeypotField ?? null,
          webhookUrl: definition.webhookUrl ?? null,
          rateLimitPerMinute: definition.rateLimitPerMinute ?? null,
        };
        const row = existing ? em.assign(existing, values) : em.create(FormEntity, { site: site.id, formKey: definition.formKey, ...values });
        await em.flush();
        return toForm(row, site.siteKey);
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) return undefined;
        throw error;
      }
    },
  };
}

export type FormStore = ReturnType<typeof createFormStore>;
