import { canUseSite, requireRole, SvcError, type Principal } from '@svc/kit';

/** Authoring needs role editor (or admin) and the site among the token's sites. */
export function requireAuthor(principal: Principal | undefined, siteKey: string): Principal {
  const p = requireRole(principal, 'editor');
  if (!canUseSite(p, siteKey)) throw new SvcError('FORBIDDEN', `Your token does not grant site ${JSON.stringify(siteKey)}`);
  return p;
}

/** True when the caller may see the site's authoring data; used to answer 404 rather than leak ids. */
export function mayAuthor(principal: Principal | undefined, siteKey: string): boolean {
  return !!principal && principal.roles.some((r) => r === 'admin' || r === 'editor') && canUseSite(principal, siteKey);
}
