import { Migration } from '@mikro-orm/migrations';
import { idempotentChangeMigration } from '@svc/kit';

class InitialSchema extends Migration {
  override up(): void {
    this.addSql(`
create table cms.site (
  id uuid primary key,
  site_key text not null unique,
  name text not null,
  created_at timestamptz not null
);
create table cms.content (
  id uuid primary key,
  site_id uuid not null references cms.site (id),
  slug text not null,
  latest_version int not null,
  published_version int,
  published_at timestamptz,
  scheduled_at timestamptz,
  scheduled_version int,
  ever_published boolean not null default false,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint content_site_slug_unique unique (site_id, slug)
);
create table cms.content_version (
  id uuid primary key,
  content_id uuid not null references cms.content (id) on delete cascade,
  version int not null,
  status text not null check (status in ('DRAFT', 'PUBLISHED', 'SUPERSEDED', 'UNPUBLISHED')),
  title text not null,
  fields jsonb not null,
  seo jsonb not null,
  created_at timestamptz not null,
  created_by text,
  published_at timestamptz,
  constraint content_version_unique unique (content_id, version)
);
create unique index content_version_one_published on cms.content_version (content_id) where status = 'PUBLISHED';
create table cms.form (
  id uuid primary key,
  site_id uuid not null references cms.site (id),
  form_key text not null,
  name text not null,
  fields jsonb not null,
  honeypot_field text,
  webhook_url text,
  rate_limit_per_minute int,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  constraint form_site_key_unique unique (site_id, form_key)
);
create table cms.form_submission (
  id uuid primary key,
  form_id uuid not null references cms.form (id),
  data jsonb not null,
  spam boolean not null,
  client_ip text,
  received_at timestamptz not null,
  webhook_status text not null check (webhook_status in ('NONE', 'PENDING', 'DELIVERED', 'FAILED')),
  webhook_attempts int not null default 0,
  webhook_last_error text
);
create index form_submission_form_received on cms.form_submission (form_id, received_at desc);
`);
  }
}

/**
 * The webhook outbox: a PENDING submission row is the delivery to make, due at
 * `webhook_due_at` (stored in the same INSERT as the submission, so no commit can separate
 * them); delivering claims it by moving the due time ahead (a lease).
 */
class WebhookOutbox extends Migration {
  override up(): void {
    this.addSql(`
alter table cms.form_submission add column webhook_due_at timestamptz;
update cms.form_submission set webhook_due_at = received_at where webhook_status = 'PENDING';
create index form_submission_webhook_due on cms.form_submission (webhook_due_at) where webhook_status = 'PENDING';
`);
  }
}

/**
 * Preview links are signed with a secret of their site (domain/preview-token.ts); rotating it
 * revokes every link of the site. Existing sites get a random one (gen_random_uuid draws from
 * the server's strong random source: two of them are 244 random bits).
 */
class PreviewSecret extends Migration {
  override up(): void {
    this.addSql(`
alter table cms.site add column preview_secret text not null default replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
alter table cms.site add column preview_secret_rotated_at timestamptz;
`);
  }
}

/**
 * Locales: a site lists its languages (BCP 47 tags, a default, one fallback each), and each
 * content row is one locale of a content: rows of one content share `group_id` (the first row's
 * id) and have one row per locale; slugs are unique per site and locale. Existing contents are
 * their site's default locale (English until a site says otherwise).
 */
class Locales extends Migration {
  override up(): void {
    this.addSql(`
alter table cms.site add column default_locale text not null default 'en';
alter table cms.site add column locales jsonb not null default '[{"tag": "en", "fallback": null}]';
alter table cms.content add column locale text;
alter table cms.content add column group_id uuid;
update cms.content c set locale = s.default_locale, group_id = c.id from cms.site s where s.id = c.site_id;
alter table cms.content alter column locale set not null;
alter table cms.content alter column group_id set not null;
alter table cms.content drop constraint content_site_slug_unique;
alter table cms.content add constraint content_site_locale_slug_unique unique (site_id, locale, slug);
alter table cms.content add constraint content_group_locale_unique unique (group_id, locale);
create index content_site_slug on cms.content (site_id, slug);
`);
  }
}

/** Applied in order at start; names are stored in cms.mikro_orm_migrations and never change. */
export const CMS_MIGRATIONS = [
  { name: '0001_initial_schema', class: InitialSchema },
  idempotentChangeMigration('0002_idempotent_change', 'cms'),
  { name: '0003_webhook_outbox', class: WebhookOutbox },
  { name: '0004_preview_secret', class: PreviewSecret },
  { name: '0005_locales', class: Locales },
];
