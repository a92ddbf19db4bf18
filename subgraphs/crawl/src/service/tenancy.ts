import { canUseTenant, requirePrincipal, requireRole, SvcError, type SvcContext } from '@svc/kit';

/**
 * The tenant a crawl call acts for: `X-Svc-Tenant-Id`, which must be one of the token's
 * tenants (403 otherwise); without the header, the token's only tenant (the spec's trigger
 * and result examples send no tenant header). A token with several tenants must name one (400).
 */
export function tenantOf(ctx: SvcContext): string {
  const principal = requirePrincipal(ctx.principal);
  if (ctx.tenantId) {
    if (!canUseTenant(principal, ctx.tenantId)) throw new SvcError('FORBIDDEN', `Your token does not grant tenant ${JSON.stringify(ctx.tenantId)}`);
    return ctx.tenantId;
  }
  if (principal.tenants !== '*' && principal.tenants.length === 1) return principal.tenants[0]!;
  throw new SvcError('BAD_USER_INPUT', 'The X-Svc-Tenant-Id header is required: your token grants more than one tenant', { slug: 'missing-header' });
}

/** Creating, triggering, pausing and deleting jobs needs role crawler (or admin). */
export function writerTenant(ctx: SvcContext): string {
  requireRole(ctx.principal, 'crawler');
  return tenantOf(ctx);
}
