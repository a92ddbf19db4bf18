import { requirePrincipal, type SvcContext } from '@svc/kit';
import type { Caller } from '../service/sources/metric-source.js';

/** The resolver's caller with the headers that carry its authority on to the router. */
export function callerOf(ctx: SvcContext): Caller {
  const principal = requirePrincipal(ctx.principal);
  const headers: Record<string, string> = { 'x-request-id': ctx.requestId };
  if (ctx.bearer) headers.authorization = `Bearer ${ctx.bearer}`;
  if (ctx.tenantId) headers['x-svc-tenant-id'] = ctx.tenantId;
  return { principal, headers };
}
