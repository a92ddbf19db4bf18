import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createTokenVerifier, issueToken, ISSUER } from './auth.js';
import { createMemoryCache } from './cache/cache.js';
import { SvcError } from './errors.js';
import { createSessionRevocations } from './session-revocation.js';

const SECRET = 'test-secret-that-is-at-least-32-characters';
const alice = { subject: 'alice', roles: ['analyst'] as const, tenants: ['t1'], sites: [] };

describe('createSessionRevocations', () => {
  it('ends the sessions issued before the change, and only those, once the next second has begun', async () => {
    const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
    const before = Math.floor(Date.now() / 1000);
    expect(await sessions.isRevoked('alice', before)).toBe(false);
    const notBefore = await sessions.endSessions('alice');
    expect(notBefore).toBe(before + 1);
    expect(Date.now()).toBeGreaterThanOrEqual(notBefore * 1000);
    expect(await sessions.isRevoked('alice', before)).toBe(true);
    expect(await sessions.isRevoked('alice', undefined)).toBe(true);
    expect(await sessions.isRevoked('alice', notBefore)).toBe(false);
    expect(await sessions.isRevoked('bob', before)).toBe(false);
  });

  it('reaches another process through the shared cache once what that process remembered is older than checkSeconds', async () => {
    const cache = createMemoryCache();
    const publisher = createSessionRevocations({ cache, maxLifetimeSeconds: 3600 });
    const other = createSessionRevocations({ cache, maxLifetimeSeconds: 3600, checkSeconds: 0.3 });
    const issuedAt = Math.floor(Date.now() / 1000);
    expect(await other.isRevoked('alice', issuedAt)).toBe(false); // remembered as "no revocation"
    await publisher.publish('alice', issuedAt + 1); // what endSessions publishes, without its wait for the next second
    expect(await other.isRevoked('alice', issuedAt)).toBe(false); // still within its 0.3 s
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await other.isRevoked('alice', issuedAt)).toBe(true);
  });

  it('keeps the later of two publications and drops one whose tokens have all expired', async () => {
    const cache = createMemoryCache();
    const sessions = createSessionRevocations({ cache, maxLifetimeSeconds: 60 });
    const now = Math.floor(Date.now() / 1000);
    await sessions.publish('alice', now + 5);
    await sessions.publish('alice', now - 10);
    expect(await cache.get('session-not-before:alice')).toBe(String(now + 5));
    await sessions.publish('bob', now - 200);
    expect(await cache.get('session-not-before:bob')).toBeUndefined();
  });
});

describe('createTokenVerifier with sessions', () => {
  it('refuses a token of this platform issued before its subject\'s sessions ended, and accepts one issued after', async () => {
    const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
    const verifier = createTokenVerifier({ secret: SECRET, sessions });
    const old = (await issueToken(SECRET, alice, 600)).accessToken;
    expect((await verifier.verify(old)).subject).toBe('alice');
    await sessions.endSessions('alice');
    let caught: unknown;
    try {
      await verifier.verify(old);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).code).toBe('UNAUTHENTICATED');
    expect((caught as SvcError).extensions.slug).toBe('token-revoked');
    const fresh = (await issueToken(SECRET, alice, 600)).accessToken;
    expect((await verifier.verify(fresh)).subject).toBe('alice');
  });
});

describe('tokens of an outside identity provider (JWKS)', () => {
  it('keep working with sessions configured: their revocation is the issuer\'s', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
      const verifier = createTokenVerifier({ jwksUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, sessions });
      const token = await new SignJWT({ roles: ['analyst'], tenants: ['t1'] })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setSubject('alice').setIssuer(ISSUER).setIssuedAt().setExpirationTime('10m').sign(privateKey);
      expect((await verifier.verify(token)).roles).toEqual(['analyst']);
      await sessions.endSessions('alice');
      expect((await verifier.verify(token)).subject).toBe('alice');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
