import { scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { Algorithm, hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

/**
 * Argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane). `@node-rs/argon2`
 * ships prebuilt binaries in npm packages (no install script, no build) and hashes on libuv's
 * thread pool, so a login does not stall the event loop. The PHC string carries its parameters,
 * so they can change: {@link needsRehash} tells when a stored hash is older than them.
 */
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const CURRENT_PREFIX = `$argon2id$v=19$m=${ARGON2.memoryCost},t=${ARGON2.timeCost},p=${ARGON2.parallelism}$`;

// Hashes written before argon2id: `scrypt$N$r$p$salt$hash` (base64url). Still verified, then rehashed at login.
const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const SCRYPT_MAXMEM = 64 * 1024 * 1024;

/** An argon2id PHC string (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`). */
export async function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, ARGON2);
}

async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = stored.split('$');
  if (!salt || !hash || !/^\d+$/.test(n ?? '') || !/^\d+$/.test(r ?? '') || !/^\d+$/.test(p ?? '')) return false;
  const expected = Buffer.from(hash, 'base64url');
  if (!expected.length) return false;
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT_MAXMEM });
  return timingSafeEqual(actual, expected);
}

/** Whether `password` matches `stored` (argon2id, or a legacy scrypt hash); false for anything else. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    if (stored.startsWith('$argon2id$')) return await argon2Verify(stored, password);
    if (stored.startsWith('scrypt$')) return await verifyScrypt(password, stored);
  } catch {
    // A malformed stored value verifies nothing.
  }
  return false;
}

/** True when `stored` was not made by {@link hashPassword} with today's parameters (a login then rehashes it). */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith(CURRENT_PREFIX);
}
