import { hasRole, openAiErrors, SvcError, tenantOf, type SvcContext } from '@svc/kit';
import { AGENT_CODE, TENANT_ID } from '../domain/agent-code.js';
import { canManage, canRead, ownerForNew, PLATFORM, type AgentOwner, type AgentScope } from '../domain/agent-owner.js';
import type { AgentStore } from '../store/agent-store.js';
import type { KeyService } from './key-service.js';

/** Who the caller administers or reads, and for whom an agent it creates is made. */
interface Reach {
  scope: AgentScope;
  /** The owner's tenant of an agent this caller creates; undefined: the platform's. */
  creatingFor(): string | undefined;
}

/**
 * The gateway's administration by owner (domain/agent-owner.ts). The master key and a platform
 * admin (role admin for every tenant, "*") reach every agent; a tenant's admin manages, and its
 * admins, analysts and reviewers read, that tenant's agents only (the one X-Svc-Tenant-Id names,
 * or all of the token's tenants when it names none). Another owner's agent answers as if it did
 * not exist where it is read (404, or left out of a list), and 403 where a change would claim
 * its name. An agent's key administers nothing.
 */
/**
 * The platform reaches every agent. A read that names a tenant (X-Svc-Tenant-Id: the dashboard,
 * or an analysis of that tenant's budgets) sees that tenant's agents only, so nothing of another
 * tenant lands in what is shown for this one; an agent created with the header is that tenant's.
 */
function platformReach(ctx: SvcContext, need: 'manage' | 'read'): Reach {
  const tenant = ctx.tenantId;
  if (tenant !== undefined && !TENANT_ID.test(tenant)) throw new SvcError('BAD_USER_INPUT', `X-Svc-Tenant-Id ${JSON.stringify(tenant.slice(0, 80))} is not a tenant id`);
  return { scope: need === 'read' && tenant !== undefined ? { all: false, tenants: [tenant] } : { all: true }, creatingFor: () => tenant };
}

export function createAgentAccess(agents: AgentStore, keys: KeyService) {
  async function reach(ctx: SvcContext, need: 'manage' | 'read'): Promise<Reach> {
    const principal = ctx.principal;
    if (principal) {
      const allowed = need === 'manage' ? hasRole(principal) : hasRole(principal, 'analyst', 'reviewer');
      if (!allowed) throw openAiErrors.permissionDenied(need === 'manage' ? 'Gateway administration needs role admin' : 'Reading gateway budgets, usage and keys needs role admin, analyst or reviewer');
      if (principal.tenants === '*') return platformReach(ctx, need);
      const tenants = ctx.tenantId ? [tenantOf(ctx)] : principal.tenants;
      return { scope: { all: false, tenants }, creatingFor: () => tenantOf(ctx) };
    }
    const caller = await keys.authenticate(ctx.bearer);
    if (caller.kind !== 'master') throw openAiErrors.permissionDenied('Gateway administration needs the master key (SVCLLM_MASTER_KEY) or an admin token', 'master_key_required');
    return platformReach(ctx, need);
  }

  /** A test of agent codes for what the caller may `need` (owners read once, only when it reaches less than all). */
  async function allowed(ctx: SvcContext, need: 'manage' | 'read'): Promise<(code: string) => boolean> {
    const { scope } = await reach(ctx, need);
    if (scope.all) return () => true;
    const owners = await agents.owners();
    const can = need === 'manage' ? canManage : canRead;
    return (code) => can(scope, owners.get(code) ?? PLATFORM);
  }

  /** A test of agents' owners for what the caller may `need`, reading nothing (for callers that read the owners with the agents). */
  async function allowedOwners(ctx: SvcContext, need: 'manage' | 'read'): Promise<(owner: AgentOwner) => boolean> {
    const { scope } = await reach(ctx, need);
    const can = need === 'manage' ? canManage : canRead;
    return (owner) => can(scope, owner);
  }

  const notYours = (code: string) => openAiErrors.permissionDenied(`The agent ${JSON.stringify(code)} is not yours to manage: it belongs to the platform or another tenant`, 'agent_not_yours');

  return {
    /** The agents the caller may read (budgets, usage, keys' metadata), as a test of their codes. */
    readable: (ctx: SvcContext) => allowed(ctx, 'read'),

    /** The owners whose agents the caller may read, as a test: for agents read with their owner (budgets carry it). */
    readableOwners: (ctx: SvcContext) => allowedOwners(ctx, 'read'),

    /** Whether the caller may read the agent `code` (an unknown one: no). */
    async mayRead(ctx: SvcContext, code: string): Promise<boolean> {
      const { scope } = await reach(ctx, 'read');
      const owner = await agents.owner(code);
      return owner !== undefined && canRead(scope, owner);
    },

    /**
     * Runs `change` on the agent `code` when the caller manages it, creating the agent as the
     * caller's (its tenant's, or the platform's) when it does not exist yet; 403 when it is
     * another owner's. `check` (the request's own validation) runs once the caller is known to
     * be allowed and before the agent is created; an agent created here whose change then fails
     * (a replayed idempotency key, a lost connection) is removed again, so a refused or failed
     * request leaves nothing behind.
     */
    async manage<T>(ctx: SvcContext, code: unknown, change: () => Promise<T>, check: () => unknown = () => undefined): Promise<T> {
      const { scope, creatingFor } = await reach(ctx, 'manage');
      if (typeof code !== 'string' || !AGENT_CODE.test(code)) {
        await check(); // names the bad agentCode (422)
        return change();
      }
      const existing = await agents.owner(code);
      const wanted = existing ?? ownerForNew(code, creatingFor());
      if (!canManage(scope, wanted)) throw notYours(code);
      await check();
      if (existing) return change();
      // Created meanwhile by another caller: the owner it got decides.
      if (!canManage(scope, await agents.claim(code, wanted))) throw notYours(code);
      try {
        return await change();
      } catch (error) {
        await agents.removeIfBare(code).catch(() => undefined);
        throw error;
      }
    },

    /** The caller manages the agent of key `id`; 404 (as for no key) otherwise. */
    async manageKey(ctx: SvcContext, id: string): Promise<void> {
      const { scope } = await reach(ctx, 'manage');
      const code = await keys.agentOf(id);
      const owner = code === undefined ? undefined : await agents.owner(code);
      if (!owner || !canManage(scope, owner)) throw openAiErrors.notFound(`No API key with id ${JSON.stringify(id)}`, 'id', 'not_found');
    },
  };
}

export type AgentAccess = ReturnType<typeof createAgentAccess>;
