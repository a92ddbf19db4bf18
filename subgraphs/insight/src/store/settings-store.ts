import type { MikroORM } from '@svc/kit';
import type { Row } from './rows.js';

/** A tenant's analysis settings. The secret is read only to sign deliveries, never shown. */
export interface TenantSettings {
  tenantId: string;
  operatorWebhookUrl: string | null;
  operatorWebhookSecret: string | null;
  updatedBy: string;
  updatedAt: Date;
}

const toSettings = (r: Row): TenantSettings => ({
  tenantId: String(r.tenant_id),
  operatorWebhookUrl: (r.operator_webhook_url as string | null) ?? null,
  operatorWebhookSecret: (r.operator_webhook_secret as string | null) ?? null,
  updatedBy: String(r.updated_by),
  updatedAt: new Date(String(r.updated_at)),
});

/** One row of settings per tenant (the operator webhook EXTERNAL actions are handed off to). */
export function createSettingsStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    async get(tenantId: string): Promise<TenantSettings | undefined> {
      const [row] = await em().execute<Row[]>('select * from insight.tenant_settings where tenant_id = ?', [tenantId]);
      return row ? toSettings(row) : undefined;
    },

    /** Replaces the operator webhook; `secret` undefined keeps the stored one. */
    async setOperatorWebhook(tenantId: string, url: string | null, secret: string | null | undefined, updatedBy: string): Promise<TenantSettings> {
      const keep = secret === undefined;
      const [row] = await em().execute<Row[]>(
        `insert into insight.tenant_settings (tenant_id, operator_webhook_url, operator_webhook_secret, updated_by) values (?, ?, ?, ?)
         on conflict (tenant_id) do update set operator_webhook_url = excluded.operator_webhook_url,
           operator_webhook_secret = case when ? then insight.tenant_settings.operator_webhook_secret else excluded.operator_webhook_secret end,
           updated_by = excluded.updated_by, updated_at = now()
         returning *`,
        [tenantId, url, secret ?? null, updatedBy, keep],
      );
      return toSettings(row!);
    },
  };
}

export type SettingsStore = ReturnType<typeof createSettingsStore>;
