import { requireRole, tenantOf, type SvcContext } from '@svc/kit';
import type { Caller } from '../service/sources/metric-source.js';

/**
 * The resolver's caller with the headers that carry its authority on to the router, for the
 * tenant it acts for. Metric reads and tools are for analysts and reviewers: the role is
 * checked before the tenant, so a wrong role is a 403 whatever the headers say.
 */
export function callerOf(ctx: SvcContext): Caller {
  const principal = requireRole(ctx.principal, 'analyst', 'reviewer');
  const tenantId = tenantOf(ctx);
  const headers: Record<string, string> = { 'x-request-id': ctx.requestId, 'x-svc-tenant-id': tenantId };
  if (ctx.bearer) headers.authorization = `Bearer ${ctx.bearer}`;
  return { principal, tenantId, headers };
}
