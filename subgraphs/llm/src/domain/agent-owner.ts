import { shareTenantOf } from './agent-code.js';

/**
 * Whose an agent is. A tenant's agent is managed and read by that tenant's admins (and read by
 * its analysts and reviewers). A platform agent (the analysis and crawl services' callers, and
 * what the master key creates) is managed by the master key and platform admins only; a platform
 * agent's share for one tenant (`insight:demo`, charged for that tenant's analyses) is read by
 * that tenant too, and still managed by the platform alone, so a tenant cannot raise the budget
 * that bounds its own use of the platform's agent.
 */
export type AgentOwner = { kind: 'platform'; tenantId: string | null } | { kind: 'tenant'; tenantId: string };

/** What a caller may reach: everything (the master key, a platform admin or reader), or some tenants. */
export type AgentScope = { all: true } | { all: false; tenants: readonly string[] };

export const PLATFORM: AgentOwner = { kind: 'platform', tenantId: null };

/** The owner of an agent created now by a caller acting for `tenantId` (undefined: the platform itself). */
export function ownerForNew(code: string, tenantId: string | undefined): AgentOwner {
  const share = shareTenantOf(code);
  if (share !== undefined) return { kind: 'platform', tenantId: share };
  return tenantId === undefined ? PLATFORM : { kind: 'tenant', tenantId };
}

export function canRead(scope: AgentScope, owner: AgentOwner): boolean {
  return scope.all || (owner.tenantId !== null && scope.tenants.includes(owner.tenantId));
}

export function canManage(scope: AgentScope, owner: AgentOwner): boolean {
  return scope.all || (owner.kind === 'tenant' && scope.tenants.includes(owner.tenantId));
}

/** The stored columns (`tenant_id`, `tenant_managed`) as an owner. */
export function ownerOf(tenantId: string | null, tenantManaged: boolean): AgentOwner {
  if (tenantId === null) return PLATFORM;
  return tenantManaged ? { kind: 'tenant', tenantId } : { kind: 'platform', tenantId };
}
