import { createRemoteJWKSet, jwtVerify, SignJWT, errors as joseErrors, type JWTPayload } from 'jose';
import { SvcError } from './errors.js';
import { CLIENT_ADDRESS_MAX_AGE_SECONDS, clientAddressKey, isSignedClientAddress } from './client-address.js';
import type { SessionRevocations } from './session-revocation.js';

export const ROLES = ['admin', 'analyst', 'reviewer', 'editor', 'crawler'] as const;
export type Role = (typeof ROLES)[number];
export const ISSUER = 'svc-platform';

/** Who is calling, from a verified JWT. `'*'` grants every tenant or site. */
export interface Principal {
  subject: string;
  roles: readonly Role[];
  tenants: readonly string[] | '*';
  sites: readonly string[] | '*';
  /** Who a service token acts for (the `act.sub` claim, RFC 8693), e.g. the approver of an action. */
  actor?: string;
  /** The account's session version the token was signed with (claim `sv`, session-revocation.ts). */
  sessionVersion?: number;
}

export interface AuthOptions {
  /** HS256 secret; used to sign and verify. */
  secret?: string;
  /** JWKS for RS256/ES256 verification of tokens issued elsewhere. */
  jwksUrl?: string;
  /**
   * Longest accepted token lifetime in seconds (SVC_JWT_MAX_LIFETIME_SECONDS), from `iat` (or,
   * without one, from now) to `exp`. Default {@link DEFAULT_MAX_TOKEN_LIFETIME_SECONDS}.
   */
  maxLifetimeSeconds?: number;
  /**
   * Sessions ended by a password change, a disable or a change of grants (see
   * session-revocation.ts): a token this platform signed (HS256) with a session version below its
   * account's current one is refused. Tokens of an outside issuer (JWKS) are revoked by that issuer.
   */
  sessions?: SessionRevocations;
}

/** 24 hours: a login token for a working day; service tokens live minutes. */
export const DEFAULT_MAX_TOKEN_LIFETIME_SECONDS = 86_400;

/**
 * A token must say when it expires, and not too far ahead: a leaked token without `exp` (or
 * with one years away) would be good forever. `iat` in the future is refused too (it would
 * hide a long lifetime); 60 s of clock skew are tolerated.
 */
function checkLifetime(payload: JWTPayload, maxLifetimeSeconds: number): void {
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.exp !== 'number') throw new SvcError('UNAUTHENTICATED', 'Access token has no expiry (exp)', { slug: 'invalid-token' });
  if (typeof payload.iat === 'number' && payload.iat > now + 60) throw new SvcError('UNAUTHENTICATED', 'Access token is issued in the future (iat)', { slug: 'invalid-token' });
  const from = typeof payload.iat === 'number' ? payload.iat : now;
  if (payload.exp - from > maxLifetimeSeconds) {
    throw new SvcError('UNAUTHENTICATED', `Access token lives longer than the allowed ${maxLifetimeSeconds} s (exp - iat)`, { slug: 'invalid-token' });
  }
}

export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
  /** Whether the router signed this client address (see client-address.ts); false without a shared secret. */
  isRouterClientAddress(address: string | undefined, signature: string | undefined): boolean;
}

function scope(value: unknown, claim: string): readonly string[] | '*' {
  if (value === undefined) return [];
  if (value === '*') return '*';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.includes('*') ? '*' : value;
  throw new SvcError('UNAUTHENTICATED', `Token claim "${claim}" must be an array of strings or "*"`);
}

export function principalFromClaims(payload: JWTPayload): Principal {
  if (typeof payload.sub !== 'string' || !payload.sub) throw new SvcError('UNAUTHENTICATED', 'Token has no subject');
  const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is Role => (ROLES as readonly unknown[]).includes(r)) : [];
  const act = (payload as { act?: { sub?: unknown } }).act;
  const actor = act && typeof act.sub === 'string' && act.sub ? act.sub : undefined;
  const sv = (payload as { sv?: unknown }).sv;
  const sessionVersion = typeof sv === 'number' && Number.isSafeInteger(sv) && sv >= 0 ? sv : undefined;
  return {
    subject: payload.sub, roles, tenants: scope(payload.tenants, 'tenants'), sites: scope(payload.sites, 'sites'),
    ...(actor ? { actor } : {}), ...(sessionVersion !== undefined ? { sessionVersion } : {}),
  };
}

/** How many checked tokens and client-address signatures a process remembers, each kind. */
const REMEMBERED = 1000;
/** How long a verified token is believed without verifying it again (never past its expiry). */
const VERIFIED_FOR_MS = 60_000;
/** How long a good client-address signature is believed without checking it again (never past its 300 s validity). */
const SIGNATURE_REUSE_MS = 10_000;

/**
 * Credentials found good, so the same one on the next call (every federated request reaches
 * several subgraphs with the same token and signed address) is not checked again: each until
 * the time given when it was remembered, the oldest forgotten first. Nothing refused is kept.
 */
function remembered<V>() {
  const entries = new Map<string, { value: V; until: number }>();
  return {
    get(key: string, now: number): V | undefined {
      const entry = entries.get(key);
      if (entry && entry.until > now) return entry.value;
      if (entry) entries.delete(key);
      return undefined;
    },
    set(key: string, value: V, until: number): void {
      if (entries.size >= REMEMBERED) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, until });
    },
  };
}

export function createTokenVerifier(options: AuthOptions): TokenVerifier {
  const secret = options.secret ? new TextEncoder().encode(options.secret) : undefined;
  const jwks = options.jwksUrl ? createRemoteJWKSet(new URL(options.jwksUrl)) : undefined;
  if (!secret && !jwks) throw new Error('Token verification needs SVC_JWT_SECRET or SVC_JWKS_URL');
  const maxLifetimeSeconds = options.maxLifetimeSeconds ?? DEFAULT_MAX_TOKEN_LIFETIME_SECONDS;
  const addressKey = options.secret ? clientAddressKey(options.secret) : undefined;
  const verified = remembered<JWTPayload>();
  const signedAddresses = remembered<true>();
  return {
    isRouterClientAddress(address, signature) {
      if (!address || !signature) return false;
      const key = `${signature} ${address}`;
      const now = Date.now();
      if (signedAddresses.get(key, now)) return true;
      if (!isSignedClientAddress(addressKey, address, signature, now)) return false;
      // Good: the signed second is the part before the dot (client-address.ts).
      const signedAtMs = Number(signature.slice(0, signature.indexOf('.'))) * 1000;
      signedAddresses.set(key, true, Math.min(now + SIGNATURE_REUSE_MS, signedAtMs + CLIENT_ADDRESS_MAX_AGE_SECONDS * 1000));
      return true;
    },
    async verify(token) {
      try {
        let payload = verified.get(token, Date.now());
        if (!payload) {
          payload = (jwks
            ? await jwtVerify(token, jwks, { issuer: ISSUER, algorithms: ['RS256', 'ES256'] })
            : await jwtVerify(token, secret!, { issuer: ISSUER, algorithms: ['HS256'] })).payload;
          checkLifetime(payload, maxLifetimeSeconds);
          verified.set(token, payload, Math.min(Date.now() + VERIFIED_FOR_MS, (payload.exp ?? 0) * 1000));
        }
        const principal = principalFromClaims(payload);
        if (!jwks && options.sessions && (await options.sessions.isRevoked(principal.subject, principal.sessionVersion))) {
          throw new SvcError('UNAUTHENTICATED', 'Access token was revoked (password changed, account disabled or its grants changed); log in again', { slug: 'token-revoked' });
        }
        return principal;
      } catch (error) {
        if (error instanceof SvcError) throw error;
        if (error instanceof joseErrors.JWTExpired) throw new SvcError('UNAUTHENTICATED', 'Access token has expired', { slug: 'token-expired' });
        throw new SvcError('UNAUTHENTICATED', 'Access token is invalid', { slug: 'invalid-token' });
      }
    },
  };
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
}

export async function issueToken(secret: string, principal: Principal, ttlSeconds: number): Promise<IssuedToken> {
  const claims = {
    roles: [...principal.roles], tenants: principal.tenants, sites: principal.sites,
    ...(principal.actor ? { act: { sub: principal.actor } } : {}), ...(principal.sessionVersion !== undefined ? { sv: principal.sessionVersion } : {}),
  };
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(principal.subject)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(new TextEncoder().encode(secret));
  return { accessToken, tokenType: 'Bearer', expiresIn: ttlSeconds };
}

/** Extracts the token of an `Authorization: Bearer` header; undefined when absent. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new SvcError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
  return match[1];
}

export function hasRole(principal: Principal | undefined, ...roles: Role[]): boolean {
  return !!principal && principal.roles.some((r) => r === 'admin' || roles.includes(r));
}

export function canUseSite(principal: Principal, siteKey: string): boolean {
  return principal.sites === '*' || principal.sites.includes(siteKey);
}

export function canUseTenant(principal: Principal, tenantId: string): boolean {
  return principal.tenants === '*' || principal.tenants.includes(tenantId);
}

export function requirePrincipal(principal: Principal | undefined): Principal {
  if (!principal) throw new SvcError('UNAUTHENTICATED', 'This operation needs Authorization: Bearer <access token>');
  return principal;
}

export function requireRole(principal: Principal | undefined, ...roles: Role[]): Principal {
  const p = requirePrincipal(principal);
  if (!hasRole(p, ...roles)) throw new SvcError('FORBIDDEN', `This operation needs one of the roles: ${['admin', ...roles].join(', ')}`);
  return p;
}
