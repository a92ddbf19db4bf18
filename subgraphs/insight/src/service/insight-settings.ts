import { parseInput, validationError, type Logger, type OutboundHttp, type TenantRequest } from '@svc/kit';
import { settingsInputSchema, type SettingsView } from '../domain/settings-input.js';
import type { SettingsStore, TenantSettings } from '../store/settings-store.js';
import { scoped } from './jobs.js';

const view = (tenantId: string, s: TenantSettings | undefined): SettingsView => ({
  tenantId,
  operatorWebhookUrl: s?.operatorWebhookUrl ?? null,
  operatorWebhookSecretSet: !!s?.operatorWebhookSecret,
  updatedBy: s?.updatedBy ?? null,
  updatedAt: s ? s.updatedAt.toISOString() : null,
});

/**
 * A tenant's analysis settings, read and set by an admin of that tenant (role admin, holding
 * the tenant). The operator webhook URL is judged by the SSRF guard when set (422 naming
 * `operatorWebhookUrl`) and again on every delivery; the secret is stored, never shown or logged.
 */
export function createSettingsService(deps: { store: SettingsStore; outbound: Pick<OutboundHttp, 'refusal'>; log: Logger }) {
  const { store } = deps;
  return {
    async get(request: TenantRequest): Promise<SettingsView> {
      const { tenantId } = scoped(request, 'admin');
      return view(tenantId, await store.get(tenantId));
    },

    async set(request: TenantRequest, input: unknown): Promise<SettingsView> {
      const { principal, tenantId } = scoped(request, 'admin');
      const body = parseInput(settingsInputSchema, input ?? {});
      if (body.operatorWebhookUrl === null) {
        const cleared = await store.setOperatorWebhook(tenantId, null, null, principal.subject);
        deps.log.info({ tenantId, by: principal.subject }, 'operator webhook cleared');
        return view(tenantId, cleared);
      }
      const refused = await deps.outbound.refusal(body.operatorWebhookUrl);
      if (refused) throw validationError([{ pointer: '/operatorWebhookUrl', detail: `operatorWebhookUrl is not allowed: ${refused}` }]);
      if (body.operatorWebhookSecret === undefined && !(await store.get(tenantId))?.operatorWebhookSecret) {
        throw validationError([{ pointer: '/operatorWebhookSecret', detail: 'operatorWebhookSecret is required with the first operatorWebhookUrl (receivers verify X-Svc-Signature with it)' }]);
      }
      const saved = await store.setOperatorWebhook(tenantId, body.operatorWebhookUrl, body.operatorWebhookSecret, principal.subject);
      deps.log.info({ tenantId, by: principal.subject, host: new URL(body.operatorWebhookUrl).host }, 'operator webhook set');
      return view(tenantId, saved);
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
