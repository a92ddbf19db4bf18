import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { newPreviewSecret, readPreviewToken, signPreviewToken, type PreviewClaims } from './preview-token.js';

const claims: PreviewClaims = {
  siteId: '0b9c3c52-9a55-4d6e-8f0e-1d2c3b4a5f60',
  contentId: '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918',
  version: 3,
  expiresAt: new Date('2026-11-28T17:00:00Z'),
};
const secret = newPreviewSecret();

/** Flips one character of the token's part `which` (0: claims, 1: signature) to another base64url character. */
function altered(token: string, which: 0 | 1, at: number): string {
  const parts = token.split('.') as [string, string];
  const part = parts[which];
  const i = at % part.length;
  parts[which] = part.slice(0, i) + (part[i] === 'A' ? 'B' : 'A') + part.slice(i + 1);
  return parts.join('.');
}

describe('preview tokens', () => {
  it('carries its claims and verifies only under the secret that signed it', () => {
    const token = signPreviewToken(claims, secret);
    expect(token).toMatch(/^[\w-]+\.[\w-]{43}$/);
    const read = readPreviewToken(token)!;
    expect(read.claims).toEqual(claims);
    expect(read.verify(secret)).toBe(true);
    expect(read.verify(newPreviewSecret())).toBe(false);
  });

  it('keeps expiry to the second', () => {
    const read = readPreviewToken(signPreviewToken({ ...claims, expiresAt: new Date('2026-11-28T17:00:00.987Z') }, secret))!;
    expect(read.claims.expiresAt.toISOString()).toBe('2026-11-28T17:00:00.000Z');
  });

  it('refuses any one changed character of the claims or the signature', () => {
    const token = signPreviewToken(claims, secret);
    for (let at = 0; at < 43; at++) expect(readPreviewToken(altered(token, 1, at))!.verify(secret)).toBe(false);
    // The last character's two low bits are padding that decoding ignores: another spelling of the same bytes is refused too.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token.at(-1)!);
    const respelled = token.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(respelled.split('.')[1]!, 'base64url')).toEqual(Buffer.from(token.split('.')[1]!, 'base64url'));
    expect(readPreviewToken(respelled)!.verify(secret)).toBe(false);
    fc.assert(
      fc.property(fc.constantFrom<0 | 1>(0, 1), fc.nat(), (which, at) => {
        const read = readPreviewToken(altered(token, which, at));
        // Either it no longer reads as a token, or its signature fails.
        expect(read === undefined || !read.verify(secret)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses claims re-signed by someone without the secret, and claims of another shape', () => {
    const forged = signPreviewToken({ ...claims, version: 4 }, 'guessed');
    expect(readPreviewToken(forged)!.verify(secret)).toBe(false);
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const signature = 'A'.repeat(43);
    for (const value of [
      [claims.siteId, claims.contentId, 3],
      [claims.siteId, 'not-a-uuid', 3, 1],
      [claims.siteId, claims.contentId, 0, 1],
      [claims.siteId, claims.contentId, 1.5, 1],
      [claims.siteId, claims.contentId, 1, -1],
      { siteId: claims.siteId },
    ]) {
      expect(readPreviewToken(`${part(value)}.${signature}`)).toBeUndefined();
    }
  });

  it('never throws on arbitrary text, and reads nothing longer than its bound', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (text) => {
        expect(() => readPreviewToken(text)).not.toThrow();
      }),
      { numRuns: 500 },
    );
    expect(readPreviewToken(`${'A'.repeat(401)}.${'A'.repeat(43)}`)).toBeUndefined();
    expect(readPreviewToken('')).toBeUndefined();
  });
});
