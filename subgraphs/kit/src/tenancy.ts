import { canUseTenant, requirePrincipal, type Principal } from './auth.js';
import { SvcError } from './errors.js';

/** A request's credential and its `X-Svc-Tenant-Id` header (a resolver's SvcContext is one). */
export interface TenantRequest {
  principal?: Principal | undefined;
  tenantId?: string | undefined;
}

/**
 * The tenant a call acts for: `X-Svc-Tenant-Id`, which must be one of the token's tenants
 * (403 otherwise); without the header, the token's only tenant (the spec's examples send no
 * tenant header). A token that grants several tenants (or `"*"`) must name one (400).
 */
export function tenantOf(request: TenantRequest): string {
  const principal = requirePrincipal(request.principal);
  if (request.tenantId) {
    if (!canUseTenant(principal, request.tenantId)) throw new SvcError('FORBIDDEN', `Your token does not grant tenant ${JSON.stringify(request.tenantId)}`);
    return request.tenantId;
  }
  if (principal.tenants !== '*' && principal.tenants.length === 1) return principal.tenants[0]!;
  if (principal.tenants !== '*' && principal.tenants.length === 0) throw new SvcError('FORBIDDEN', 'Your token grants no tenant');
  throw new SvcError('BAD_USER_INPUT', 'The X-Svc-Tenant-Id header is required: your token grants more than one tenant', { slug: 'missing-header' });
}
