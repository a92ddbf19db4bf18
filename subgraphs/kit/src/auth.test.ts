import { describe, expect, it } from '@jest/globals';
import { scryptSync } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { bearerToken, canUseSite, canUseTenant, createTokenVerifier, hasRole, issueToken, ISSUER, requireRole, type Principal } from './auth.js';
import { SvcError } from './errors.js';
import { hashPassword, needsRehash, verifyPassword } from './password.js';

const SECRET = 'test-secret-that-is-at-least-32-characters';
const OTHER_SECRET = 'another-secret-that-is-at-least-32-chars!';

const editor: Principal = { subject: 'eddie', roles: ['editor'], tenants: ['t1'], sites: ['demo', 'shop'] };

async function rejection(promise: Promise<unknown>): Promise<SvcError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SvcError);
  return caught as SvcError;
}

function sign(claims: Record<string, unknown>, options: { issuer?: string; expires?: string | number; secret?: string; subject?: string } = {}) {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(options.expires ?? '1h');
  if (options.subject !== '') jwt = jwt.setSubject(options.subject ?? 'someone');
  if (options.issuer !== '') jwt = jwt.setIssuer(options.issuer ?? ISSUER);
  return jwt.sign(new TextEncoder().encode(options.secret ?? SECRET));
}

describe('issueToken / createTokenVerifier', () => {
  const verifier = createTokenVerifier({ secret: SECRET });

  it('round-trips a principal through an HS256 token', async () => {
    const issued = await issueToken(SECRET, editor, 600);
    expect(issued.tokenType).toBe('Bearer');
    expect(issued.expiresIn).toBe(600);
    expect(decodeProtectedHeader(issued.accessToken)).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(issued.accessToken);
    expect(claims.iss).toBe(ISSUER);
    expect(claims.sub).toBe('eddie');
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(await verifier.verify(issued.accessToken)).toEqual({ subject: 'eddie', roles: ['editor'], tenants: ['t1'], sites: ['demo', 'shop'] });
  });

  it('keeps "*" scopes as "*"', async () => {
    const admin: Principal = { subject: 'root', roles: ['admin'], tenants: '*', sites: '*' };
    const principal = await verifier.verify((await issueToken(SECRET, admin, 60)).accessToken);
    expect(principal).toEqual(admin);
    expect(canUseSite(principal, 'anything')).toBe(true);
    expect(canUseTenant(principal, 'any-tenant')).toBe(true);
  });

  it('reads a scope array containing "*" as "*"', async () => {
    const principal = await verifier.verify(await sign({ roles: ['editor'], sites: ['demo', '*'], tenants: ['*'] }));
    expect(principal.sites).toBe('*');
    expect(principal.tenants).toBe('*');
  });

  it('reads missing scopes as none and drops unknown roles', async () => {
    const principal = await verifier.verify(await sign({ roles: ['editor', 'superuser', 42] }, { subject: 'x' }));
    expect(principal).toEqual({ subject: 'x', roles: ['editor'], tenants: [], sites: [] });
    expect(canUseSite(principal, 'demo')).toBe(false);
    expect(canUseTenant(principal, 't1')).toBe(false);
  });

  it('limits site and tenant access to the listed ones', async () => {
    const principal = await verifier.verify((await issueToken(SECRET, editor, 60)).accessToken);
    expect(canUseSite(principal, 'demo')).toBe(true);
    expect(canUseSite(principal, 'other')).toBe(false);
    expect(canUseTenant(principal, 't1')).toBe(true);
    expect(canUseTenant(principal, 't2')).toBe(false);
  });

  it('refuses an expired token with slug token-expired', async () => {
    const token = await sign({ roles: ['editor'] }, { expires: Math.floor(Date.now() / 1000) - 60 });
    const error = await rejection(verifier.verify(token));
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.status).toBe(401);
    expect(error.extensions.slug).toBe('token-expired');
    expect(error.message).toBe('Access token has expired');
  });

  it('remembers a verified token until it expires, and still asks about revocation on every call', async () => {
    let revoked = false;
    const asked: string[] = [];
    const remembering = createTokenVerifier({ secret: SECRET, sessions: { endSessions: async () => undefined, isRevoked: async (subject: string) => (asked.push(subject), revoked) } });
    const token = await sign({ roles: ['editor'] }, { expires: Math.floor(Date.now() / 1000) + 1 });
    expect((await remembering.verify(token)).subject).toBe('someone');
    expect((await remembering.verify(token)).subject).toBe('someone');
    revoked = true;
    expect((await rejection(remembering.verify(token))).extensions.slug).toBe('token-revoked');
    expect(asked).toEqual(['someone', 'someone', 'someone']);
    revoked = false;
    // Past its expiry the remembered token is verified again, and refused.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await rejection(remembering.verify(token))).extensions.slug).toBe('token-expired');
  });

  it('refuses a token signed with another secret with slug invalid-token', async () => {
    const token = (await issueToken(OTHER_SECRET, editor, 600)).accessToken;
    const error = await rejection(verifier.verify(token));
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.extensions.slug).toBe('invalid-token');
  });

  it('refuses a token from another issuer', async () => {
    const error = await rejection(verifier.verify(await sign({ roles: ['admin'] }, { issuer: 'someone-else' })));
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.extensions.slug).toBe('invalid-token');
  });

  it('refuses a token without issuer or subject', async () => {
    expect((await rejection(verifier.verify(await sign({}, { issuer: '' })))).extensions.slug).toBe('invalid-token');
    const noSubject = await rejection(verifier.verify(await sign({}, { subject: '' })));
    expect(noSubject.code).toBe('UNAUTHENTICATED');
    expect(noSubject.message).toBe('Token has no subject');
  });

  it('refuses garbage and tampered tokens', async () => {
    expect((await rejection(verifier.verify('not-a-jwt'))).extensions.slug).toBe('invalid-token');
    const [h, , s] = (await issueToken(SECRET, editor, 60)).accessToken.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'eddie', iss: ISSUER, roles: ['admin'], exp: Math.floor(Date.now() / 1000) + 60 })).toString('base64url');
    expect((await rejection(verifier.verify(`${h}.${forged}.${s}`))).extensions.slug).toBe('invalid-token');
  });

  it('refuses a scope claim of the wrong type, naming the claim', async () => {
    const error = await rejection(verifier.verify(await sign({ sites: 'demo' })));
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toBe('Token claim "sites" must be an array of strings or "*"');
  });

  it('needs a secret or a JWKS URL', () => {
    expect(() => createTokenVerifier({})).toThrow(/SVC_JWT_SECRET or SVC_JWKS_URL/);
  });
});

describe('token lifetime (exp required, at most SVC_JWT_MAX_LIFETIME_SECONDS)', () => {
  const verifier = createTokenVerifier({ secret: SECRET });
  const now = () => Math.floor(Date.now() / 1000);
  const raw = (claims: Record<string, unknown>) =>
    new SignJWT({ roles: ['admin'], ...claims }).setProtectedHeader({ alg: 'HS256' }).setSubject('someone').setIssuer(ISSUER).sign(new TextEncoder().encode(SECRET));

  it('refuses a token without exp, with or without iat', async () => {
    for (const token of [await raw({}), await raw({ iat: now() })]) {
      const error = await rejection(verifier.verify(token));
      expect([error.code, error.message, error.extensions.slug]).toEqual(['UNAUTHENTICATED', 'Access token has no expiry (exp)', 'invalid-token']);
    }
  });

  it('refuses a lifetime over the default 24 h, measured from iat or, without it, from now', async () => {
    expect((await rejection(verifier.verify(await raw({ iat: now(), exp: now() + 86_401 })))).message).toBe('Access token lives longer than the allowed 86400 s (exp - iat)');
    expect((await rejection(verifier.verify(await raw({ exp: now() + 10 * 365 * 86_400 })))).message).toMatch(/lives longer than the allowed 86400 s/);
    expect((await verifier.verify(await raw({ iat: now(), exp: now() + 86_400 }))).subject).toBe('someone');
    expect((await verifier.verify(await raw({ exp: now() + 3600 }))).subject).toBe('someone');
  });

  it('refuses an iat in the future (it would hide a long lifetime)', async () => {
    expect((await rejection(verifier.verify(await raw({ iat: now() + 3600, exp: now() + 7200 })))).message).toBe('Access token is issued in the future (iat)');
  });

  it('takes the maximum from the options', async () => {
    const strict = createTokenVerifier({ secret: SECRET, maxLifetimeSeconds: 600 });
    await rejection(strict.verify((await issueToken(SECRET, editor, 601)).accessToken));
    expect((await strict.verify((await issueToken(SECRET, editor, 600)).accessToken)).subject).toBe('eddie');
  });

  it('accepts the platform\'s own tokens: login tokens (default 1 h) and 5-minute service tokens acting for someone', async () => {
    expect((await verifier.verify((await issueToken(SECRET, editor, 3600)).accessToken)).subject).toBe('eddie');
    expect(await verifier.verify((await issueToken(SECRET, { ...editor, actor: 'ada' }, 300)).accessToken)).toMatchObject({ subject: 'eddie', actor: 'ada' });
  });
});

describe('bearerToken', () => {
  it('is undefined without a header', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('')).toBeUndefined();
  });

  it('extracts the token, case-insensitively and ignoring extra spaces', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer   abc.def.ghi  ')).toBe('abc.def.ghi');
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'abc.def.ghi'])('throws UNAUTHENTICATED for %j', (header) => {
    let caught: unknown;
    try {
      bearerToken(header);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).code).toBe('UNAUTHENTICATED');
    expect((caught as SvcError).message).toBe('Authorization header must be "Bearer <token>"');
  });
});

describe('hasRole / requireRole', () => {
  const admin: Principal = { subject: 'a', roles: ['admin'], tenants: '*', sites: '*' };
  const nobody: Principal = { subject: 'n', roles: [], tenants: [], sites: [] };

  it('admin passes every role check', () => {
    expect(hasRole(admin, 'editor')).toBe(true);
    expect(hasRole(admin, 'analyst', 'crawler')).toBe(true);
    expect(hasRole(admin)).toBe(true);
  });

  it('other roles pass only the checks that name them', () => {
    expect(hasRole(editor, 'editor')).toBe(true);
    expect(hasRole(editor, 'analyst', 'editor')).toBe(true);
    expect(hasRole(editor, 'analyst')).toBe(false);
    expect(hasRole(editor)).toBe(false);
    expect(hasRole(nobody, 'editor')).toBe(false);
    expect(hasRole(undefined, 'editor')).toBe(false);
  });

  it('requireRole throws UNAUTHENTICATED without a principal and FORBIDDEN without the role', () => {
    expect(requireRole(editor, 'editor')).toBe(editor);
    let caught: unknown;
    try {
      requireRole(undefined, 'editor');
    } catch (error) {
      caught = error;
    }
    expect((caught as SvcError).code).toBe('UNAUTHENTICATED');
    try {
      requireRole(editor, 'analyst');
    } catch (error) {
      caught = error;
    }
    expect((caught as SvcError).code).toBe('FORBIDDEN');
    expect((caught as SvcError).message).toBe('This operation needs one of the roles: admin, analyst');
  });
});

describe('hashPassword / verifyPassword', () => {
  it('hashes with argon2id and verifies the right password, refusing a wrong one', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(needsRehash(stored)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts each hash, so equal passwords hash differently and both verify', async () => {
    const [a, b] = await Promise.all([hashPassword('pässwörd 🔑'), hashPassword('pässwörd 🔑')]);
    expect(a).not.toBe(b);
    expect(a.split('$')[4]).not.toBe(b.split('$')[4]);
    expect(await verifyPassword('pässwörd 🔑', a)).toBe(true);
    expect(await verifyPassword('pässwörd 🔑', b)).toBe(true);
  });

  it('still verifies the scrypt hashes stored before argon2id, and says they need a rehash', async () => {
    // Made by the former hashPassword: scrypt N=16384 r=8 p=1, 16-byte salt, 32-byte key.
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('old password', salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const legacy = ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    expect(await verifyPassword('old password', legacy)).toBe(true);
    expect(await verifyPassword('old passwort', legacy)).toBe(false);
    expect(needsRehash(legacy)).toBe(true);
    expect(needsRehash('$argon2id$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaA')).toBe(true);
  });

  it('refuses stored values that are neither argon2id nor scrypt hashes', async () => {
    expect(await verifyPassword('x', 'plaintext')).toBe(false);
    expect(await verifyPassword('x', 'bcrypt$10$abc$def')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$a$b$c$d$e')).toBe(false);
    expect(await verifyPassword('x', '$argon2id$garbage')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
  });
});
