/** Agent codes: letters, digits, `.`, `_` and `-`, at most 64, starting with a letter or digit. */
const NAME = '[A-Za-z0-9][A-Za-z0-9._-]{0,63}';

/**
 * An agent's code, or a platform agent's share for one tenant, `<agent>:<tenant>` (see
 * agent-owner.ts): the colon cannot appear in an agent's own code, so no tenant can create an
 * agent that takes a share's name.
 */
export const AGENT_CODE = new RegExp(`^${NAME}(?::${NAME})?$`);

/** Tenant ids, as X-Svc-Tenant-Id carries them: the same characters as an agent's own code. */
export const TENANT_ID = new RegExp(`^${NAME}$`);

/** The share of platform agent `agentCode` that tenant `tenantId`'s calls are charged to. */
export const tenantShareOf = (agentCode: string, tenantId: string): string => `${agentCode}:${tenantId}`;

/** The tenant of a share's code (`insight:demo` → `demo`); undefined for an agent's own code. */
export function shareTenantOf(code: string): string | undefined {
  const at = code.indexOf(':');
  return at < 0 ? undefined : code.slice(at + 1);
}
