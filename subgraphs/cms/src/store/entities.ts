import { randomUUID } from 'node:crypto';
import { defineEntity, p } from '@mikro-orm/core';
import type { ContentFields, Seo } from '../domain/seo.js';
import type { FormField } from '../domain/form-definition.js';
import type { SiteLocale } from '../domain/locale.js';
import { newPreviewSecret } from '../domain/preview-token.js';

export const SiteEntity = defineEntity({
  name: 'Site',
  schema: 'cms',
  tableName: 'site',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    siteKey: p.text().unique(),
    name: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Signs the site's preview links; never leaves the service. */
    previewSecret: p.text().onCreate(() => newPreviewSecret()).lazy(),
    previewSecretRotatedAt: p.datetime().nullable(),
    defaultLocale: p.text().default('en'),
    locales: p.json<SiteLocale[]>().onCreate(() => [{ tag: 'en', fallback: null }]),
  },
});

export const ContentEntity = defineEntity({
  name: 'Content',
  schema: 'cms',
  tableName: 'content',
  uniques: [
    { name: 'content_site_locale_slug_unique', properties: ['site', 'locale', 'slug'] },
    { name: 'content_group_locale_unique', properties: ['groupId', 'locale'] },
  ],
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    site: () => p.manyToOne(SiteEntity).fieldName('site_id'),
    /** The locale this row is of; rows of one content share groupId. */
    locale: p.text(),
    groupId: p.uuid(),
    slug: p.text(),
    latestVersion: p.integer(),
    publishedVersion: p.integer().nullable(),
    publishedAt: p.datetime().nullable(),
    scheduledAt: p.datetime().nullable(),
    scheduledVersion: p.integer().nullable(),
    everPublished: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const ContentVersionEntity = defineEntity({
  name: 'ContentVersion',
  schema: 'cms',
  tableName: 'content_version',
  uniques: [{ name: 'content_version_unique', properties: ['content', 'version'] }],
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    content: () => p.manyToOne(ContentEntity).fieldName('content_id'),
    version: p.integer(),
    status: p.text(),
    title: p.text(),
    fields: p.json<ContentFields>(),
    seo: p.json<Seo>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    createdBy: p.text().nullable(),
    publishedAt: p.datetime().nullable(),
  },
});

export const FormEntity = defineEntity({
  name: 'Form',
  schema: 'cms',
  tableName: 'form',
  uniques: [{ name: 'form_site_key_unique', properties: ['site', 'formKey'] }],
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    site: () => p.manyToOne(SiteEntity).fieldName('site_id'),
    formKey: p.text(),
    name: p.text(),
    fields: p.json<FormField[]>(),
    honeypotField: p.text().nullable(),
    webhookUrl: p.text().nullable(),
    rateLimitPerMinute: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export const FormSubmissionEntity = defineEntity({
  name: 'FormSubmission',
  schema: 'cms',
  tableName: 'form_submission',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    form: () => p.manyToOne(FormEntity).fieldName('form_id'),
    data: p.json<Record<string, string>>(),
    spam: p.boolean(),
    clientIp: p.text().nullable(),
    receivedAt: p.datetime().onCreate(() => new Date()),
    webhookStatus: p.text(),
    webhookAttempts: p.integer().default(0),
    webhookLastError: p.text().nullable(),
    /** When a PENDING webhook is next due (the outbox, see migrations.ts); null otherwise. */
    webhookDueAt: p.datetime().nullable(),
  },
});

export const CMS_ENTITIES = [SiteEntity, ContentEntity, ContentVersionEntity, FormEntity, FormSubmissionEntity];
