import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, openAiErrors, type SvcContext } from '@svc/kit';
import { TENANT_ID, tenantShareOf } from '../domain/agent-code.js';
import type { AgentCaller, Caller } from '../domain/api-key.js';
import type { AgentStore } from '../store/agent-store.js';
import type { KeyService } from './key-service.js';

/**
 * Where the credential comes from: a GraphQL context (kit has taken the bearer and the tenant
 * from their headers) or the headers of one of llm's own HTTP routes.
 */
export type CredentialSource = Pick<SvcContext, 'bearer' | 'tenantId'> | { headers: IncomingHttpHeaders };

function bearerOf(source: CredentialSource): string | undefined {
  if (!('headers' in source)) return source.bearer;
  try {
    return bearerToken(source.headers.authorization);
  } catch {
    return undefined; // a malformed header carries no key: 401 invalid_api_key like a missing one
  }
}

function tenantOfCall(source: CredentialSource): string | undefined {
  const given = 'headers' in source ? source.headers['x-svc-tenant-id'] : source.tenantId;
  return typeof given === 'string' && given ? given : undefined;
}

/** Shares created by this process (bounded): a share exists once, so it is claimed once. */
const SHARES_REMEMBERED = 10_000;

export interface CallerCheckOptions {
  /** The monthly budget (USD, hard limit on) a platform agent's new share for one tenant starts with. */
  tenantShareBudgetUsd: number;
}

/** Who is calling with a gateway key (agent or master), and which budget an agent's call is charged to. */
export function createCallerCheck(keys: KeyService, agents: AgentStore, options: CallerCheckOptions) {
  const identify = (source: CredentialSource): Promise<Caller> => keys.authenticate(bearerOf(source));
  const tryIdentify = (source: CredentialSource): Promise<Caller | undefined> => identify(source).catch(() => undefined);
  const shares = new Set<string>();

  /**
   * A platform agent's call made for one tenant (X-Svc-Tenant-Id: the analysis service's calls
   * for a tenant's job) is charged to that tenant's share of the agent, `<agent>:<tenant>`, which
   * starts with its own hard budget: one tenant's questions cannot spend another's, nor stop
   * another's analyses at the limit. A tenant's own key names no share: the header is ignored.
   */
  async function chargedFor(caller: AgentCaller, source: CredentialSource): Promise<AgentCaller> {
    const tenant = tenantOfCall(source);
    if (!caller.platformAgent || tenant === undefined) return caller;
    if (!TENANT_ID.test(tenant)) throw openAiErrors.invalidRequest(`X-Svc-Tenant-Id ${JSON.stringify(tenant.slice(0, 80))} is not a tenant id`, 'X-Svc-Tenant-Id');
    const share = tenantShareOf(caller.agentCode, tenant);
    if (!shares.has(share)) {
      await agents.claim(share, { kind: 'platform', tenantId: tenant }, { monthlyBudgetUsd: options.tenantShareBudgetUsd, hardLimitEnabled: true });
      if (shares.size >= SHARES_REMEMBERED) shares.clear();
      shares.add(share);
    }
    return { ...caller, agentCode: share };
  }

  async function agentCaller(source: CredentialSource, refusal: string): Promise<AgentCaller> {
    const caller = await identify(source);
    if (caller.kind !== 'agent') throw openAiErrors.permissionDenied(refusal, 'agent_key_required');
    return chargedFor(caller, source);
  }

  return {
    /** Any gateway key, agent or master; 401 invalid_api_key otherwise. */
    identify,

    /** Like identify, but undefined instead of an error. */
    tryIdentify,

    /** An agent's key, whose agent (or the share of it the call names) is charged; the master key is refused with `refusal` (403). */
    async agent(source: CredentialSource, refusal: string): Promise<string> {
      return (await agentCaller(source, refusal)).agentCode;
    },

    /** Like agent, with the key and the rate limits of the key and its agent. */
    agentCaller,

    /** An agent's key sees its own agent (and the shares of it) only; people and the master key, see agent-access.ts. */
    async keySeesAgent(ctx: SvcContext, code: string): Promise<boolean> {
      const caller = await tryIdentify(ctx);
      return !!caller && caller.kind === 'agent' && (caller.agentCode === code || code.startsWith(`${caller.agentCode}:`));
    },
  };
}

export type CallerCheck = ReturnType<typeof createCallerCheck>;
