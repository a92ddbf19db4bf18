import { describe, expect, it } from '@jest/globals';
import { createTokenVerifier } from './auth.js';
import { createContext } from './context.js';
import { createLogger } from './logger.js';
import { CLIENT_ADDRESS_MAX_AGE_SECONDS, clientAddressKey, clientAddressSigner, isSignedClientAddress, signClientAddress } from './client-address.js';

const SECRET = 'test-secret-that-is-at-least-32-characters';
const key = clientAddressKey(SECRET);

describe('signClientAddress / isSignedClientAddress', () => {
  it('accepts the router\'s signature for the address it signed, and nothing else', () => {
    const signature = signClientAddress(key, '198.51.100.7');
    expect(isSignedClientAddress(key, '198.51.100.7', signature)).toBe(true);
    expect(isSignedClientAddress(key, '198.51.100.8', signature)).toBe(false);
    expect(isSignedClientAddress(clientAddressKey(`${SECRET}-other`), '198.51.100.7', signature)).toBe(false);
    expect(isSignedClientAddress(undefined, '198.51.100.7', signature)).toBe(false);
    expect(isSignedClientAddress(key, '198.51.100.7', undefined)).toBe(false);
    expect(isSignedClientAddress(key, '198.51.100.7', 'forged')).toBe(false);
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(isSignedClientAddress(key, '198.51.100.7', flipped)).toBe(false);
  });

  it('clientAddressSigner signs as signClientAddress does, once per address and second', () => {
    let now = 1_700_000_000_500;
    const sign = clientAddressSigner(key, () => now);
    const first = sign('198.51.100.7');
    expect(first).toBe(signClientAddress(key, '198.51.100.7', now));
    expect(sign('198.51.100.8')).toBe(signClientAddress(key, '198.51.100.8', now));
    now += 400;
    expect(sign('198.51.100.7')).toBe(first);
    now += 200; // the next second
    const next = sign('198.51.100.7');
    expect(next).not.toBe(first);
    expect(next).toBe(signClientAddress(key, '198.51.100.7', now));
    expect(isSignedClientAddress(key, '198.51.100.7', next, now)).toBe(true);
    for (let i = 0; i < 1500; i++) expect(sign(`10.0.${i >> 8}.${i & 255}`)).toBe(signClientAddress(key, `10.0.${i >> 8}.${i & 255}`, now));
  });

  it('refuses signatures older or newer than the maximum age (replays)', () => {
    const now = Date.now();
    const old = signClientAddress(key, '198.51.100.7', now - (CLIENT_ADDRESS_MAX_AGE_SECONDS + 5) * 1000);
    const ahead = signClientAddress(key, '198.51.100.7', now + (CLIENT_ADDRESS_MAX_AGE_SECONDS + 5) * 1000);
    expect(isSignedClientAddress(key, '198.51.100.7', old, now)).toBe(false);
    expect(isSignedClientAddress(key, '198.51.100.7', ahead, now)).toBe(false);
    expect(isSignedClientAddress(key, '198.51.100.7', signClientAddress(key, '198.51.100.7', now - 60_000), now)).toBe(true);
  });
});

describe('createContext: the client address', () => {
  const options = { verifier: createTokenVerifier({ secret: SECRET }), log: createLogger({ level: 'silent' }) };

  it('takes x-svc-client-ip only with the router\'s signature; otherwise the socket peer', async () => {
    const signed = await createContext({ 'x-svc-client-ip': '198.51.100.7', 'x-svc-client-ip-signature': signClientAddress(key, '198.51.100.7') }, options, '127.0.0.1');
    expect(signed.clientIp).toBe('198.51.100.7');
    const forged = await createContext({ 'x-svc-client-ip': '203.0.113.9' }, options, '10.1.2.3');
    expect(forged.clientIp).toBe('10.1.2.3');
    const replayedForOther = await createContext({ 'x-svc-client-ip': '203.0.113.9', 'x-svc-client-ip-signature': signClientAddress(key, '198.51.100.7') }, options, '10.1.2.3');
    expect(replayedForOther.clientIp).toBe('10.1.2.3');
  });

  it('believes a signature it checked again on the next call, for that address only, and never a stale one', async () => {
    const signature = signClientAddress(key, '198.51.100.7');
    for (let i = 0; i < 2; i++) expect(options.verifier.isRouterClientAddress('198.51.100.7', signature)).toBe(true);
    expect(options.verifier.isRouterClientAddress('198.51.100.8', signature)).toBe(false);
    expect(options.verifier.isRouterClientAddress('198.51.100.7', `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`)).toBe(false);
    const stale = signClientAddress(key, '198.51.100.7', Date.now() - (CLIENT_ADDRESS_MAX_AGE_SECONDS + 5) * 1000);
    expect(options.verifier.isRouterClientAddress('198.51.100.7', stale)).toBe(false);
  });

  it('never believes the header without a shared secret (JWKS-only verification)', async () => {
    const jwksOnly = { ...options, verifier: createTokenVerifier({ jwksUrl: 'https://idp.example/jwks' }) };
    const context = await createContext({ 'x-svc-client-ip': '198.51.100.7', 'x-svc-client-ip-signature': signClientAddress(key, '198.51.100.7') }, jwksOnly, '10.1.2.3');
    expect(context.clientIp).toBe('10.1.2.3');
  });
});
