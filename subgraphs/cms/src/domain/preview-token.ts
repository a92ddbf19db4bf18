import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Preview links: `<claims>.<signature>`, both base64url. The claims name the site, the content,
 * the one version the link shows and when it expires; the signature is HMAC-SHA256 of the claims
 * part under the site's preview secret. The claims are readable without the secret (they are
 * ids, not secrets): the site they name says whose secret checks the signature. Rotating the
 * site's secret revokes every link of the site at once.
 */
export interface PreviewClaims {
  siteId: string;
  contentId: string;
  version: number;
  expiresAt: Date;
}

/** At most this long: ids, a version and a time fit in well under 300 characters. */
const TOKEN = /^([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A new site secret: 256 random bits. */
export const newPreviewSecret = () => randomBytes(32).toString('base64url');

const signatureOf = (claims: string, secret: string) => createHmac('sha256', secret).update(claims).digest();

export function signPreviewToken(claims: PreviewClaims, secret: string): string {
  const part = Buffer.from(JSON.stringify([claims.siteId, claims.contentId, claims.version, Math.floor(claims.expiresAt.getTime() / 1000)])).toString('base64url');
  return `${part}.${signatureOf(part, secret).toString('base64url')}`;
}

/** A token taken apart, not yet verified. */
export interface ReadToken {
  claims: PreviewClaims;
  verify(secret: string): boolean;
}

/** The token's claims, or undefined when it is no token of this shape (the signature is checked by `verify`). */
export function readPreviewToken(token: string): ReadToken | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const [, part, signature] = match as unknown as [string, string, string];
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) return undefined;
  const [siteId, contentId, version, expires] = decoded as unknown[];
  if (typeof siteId !== 'string' || !UUID.test(siteId) || typeof contentId !== 'string' || !UUID.test(contentId)) return undefined;
  if (!Number.isSafeInteger(version) || (version as number) < 1 || !Number.isSafeInteger(expires) || (expires as number) < 0) return undefined;
  // Compared as text: base64url's last character has bits decoding ignores, so comparing decoded
  // bytes would accept several spellings of one signature.
  const given = Buffer.from(signature);
  return {
    claims: { siteId, contentId, version: version as number, expiresAt: new Date((expires as number) * 1000) },
    verify: (secret) => timingSafeEqual(given, Buffer.from(signatureOf(part, secret).toString('base64url'))),
  };
}
