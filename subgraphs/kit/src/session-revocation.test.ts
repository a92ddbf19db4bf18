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
  it("refuses the versions below an account's current one, and only those", async () => {
    const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
    expect(await sessions.isRevoked('alice', 0)).toBe(false);
    expect(await sessions.isRevoked('alice', undefined)).toBe(false); // never changed: tokens without a version live
    await sessions.endSessions('alice', 1);
    expect(await sessions.isRevoked('alice', 0)).toBe(true);
    expect(await sessions.isRevoked('alice', undefined)).toBe(true);
    expect(await sessions.isRevoked('alice', 1)).toBe(false);
    expect(await sessions.isRevoked('bob', 0)).toBe(false);
  });

  it('reaches another process through the shared cache once what that process remembered is older than checkSeconds', async () => {
    const cache = createMemoryCache();
    const publisher = createSessionRevocations({ cache, maxLifetimeSeconds: 3600 });
    const other = createSessionRevocations({ cache, maxLifetimeSeconds: 3600, checkSeconds: 0.3 });
    expect(await other.isRevoked('alice', 0)).toBe(false); // remembered as "version 0"
    await publisher.endSessions('alice', 1);
    expect(await other.isRevoked('alice', 0)).toBe(false); // still within its 0.3 s
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await other.isRevoked('alice', 0)).toBe(true);
  });

  it('keeps the higher of two publications, for as long as a token can live', async () => {
    const cache = createMemoryCache();
    const sessions = createSessionRevocations({ cache, maxLifetimeSeconds: 60 });
    await sessions.endSessions('alice', 3);
    await sessions.endSessions('alice', 2); // a republication at start, older than the change just made
    expect(await cache.get('session-version:alice')).toBe('3');
    const other = createSessionRevocations({ cache, maxLifetimeSeconds: 60 });
    await other.endSessions('alice', 1); // another process's stale view
    expect(await cache.get('session-version:alice')).toBe('3');
    expect(await other.isRevoked('alice', 2)).toBe(true);
  });
});

describe('createTokenVerifier with sessions', () => {
  it("refuses a token signed with an account's earlier session version, even one signed after the change, and accepts the current one", async () => {
    const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
    const verifier = createTokenVerifier({ secret: SECRET, sessions });
    const old = (await issueToken(SECRET, { ...alice, sessionVersion: 4 }, 600)).accessToken;
    expect(await verifier.verify(old)).toMatchObject({ subject: 'alice', sessionVersion: 4 });
    await sessions.endSessions('alice', 5);
    // A login that read the account before the change signs version 4 after it: the race a "not before" second lost.
    const late = (await issueToken(SECRET, { ...alice, sessionVersion: 4 }, 600)).accessToken;
    for (const token of [old, late]) {
      let caught: unknown;
      try {
        await verifier.verify(token);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(SvcError);
      expect((caught as SvcError).code).toBe('UNAUTHENTICATED');
      expect((caught as SvcError).extensions.slug).toBe('token-revoked');
    }
    const fresh = (await issueToken(SECRET, { ...alice, sessionVersion: 5 }, 600)).accessToken;
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
      await sessions.endSessions('alice', 1);
      expect((await verifier.verify(token)).subject).toBe('alice');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
