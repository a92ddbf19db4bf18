import type { Cache } from './cache/cache.js';

/**
 * Ends an account's sessions across every subgraph. Tokens are JWTs each subgraph verifies by
 * itself, so a change to an account cannot reach into them; instead every account has a session
 * version, which the account's own row carries and every change to it (password, disable, roles,
 * tenants, sites) raises in the same statement that makes the change. A login signs the version
 * it read with the password hash it verified (claim `sv`), and every verifier refuses a token
 * whose version is below the account's current one, published through the shared cache (Redis
 * with REDIS_URL; otherwise the process's own cache, which in `svc all` every service shares).
 *
 * Versions, not times: a login that read the account just before a change signs the old version
 * even when it signs after the change, so it is refused like every earlier token (a "not before"
 * second cannot tell it from a login after the change). Each process remembers what it read for
 * `checkSeconds`, so a change reaches another process within that bound (and at once in the
 * process that published it). No subgraph reads another's schema: the owner republishes from
 * its own table at start, so a restarted or flushed cache learns the versions again.
 */
export interface SessionRevocations {
  /**
   * Publishes that `subject`'s sessions are now at `version` (as its account row says after a
   * change, or a republication at start): every token of a lower version is refused from now on.
   * A lower version never replaces a higher one.
   */
  endSessions(subject: string, version: number): Promise<void>;
  /**
   * Whether a token of `subject` signed with session version `version` (the `sv` claim; a token
   * without one counts as version 0) has been revoked.
   */
  isRevoked(subject: string, version: number | undefined): Promise<boolean>;
}

export interface SessionRevocationOptions {
  cache: Cache;
  /** How long a process trusts what it read for a subject, seconds: the propagation bound. Default 5. */
  checkSeconds?: number;
  /** The longest accepted token lifetime (SVC_JWT_MAX_LIFETIME_SECONDS): after it no older token is alive. */
  maxLifetimeSeconds: number;
  /** Subjects remembered per process. Default 10,000. */
  maxRemembered?: number;
}

const keyOf = (subject: string) => `session-version:${subject}`;

export function createSessionRevocations(options: SessionRevocationOptions): SessionRevocations {
  const { cache, maxLifetimeSeconds } = options;
  const checkMs = (options.checkSeconds ?? 5) * 1000;
  const maxRemembered = options.maxRemembered ?? 10_000;
  const remembered = new Map<string, { version: number; readAt: number }>();
  const remember = (subject: string, version: number) => {
    remembered.delete(subject);
    if (remembered.size >= maxRemembered) remembered.delete(remembered.keys().next().value!);
    remembered.set(subject, { version, readAt: Date.now() });
  };

  async function publish(subject: string, version: number): Promise<void> {
    const known = Math.max(remembered.get(subject)?.version ?? 0, Number((await cache.get(keyOf(subject))) ?? 0) || 0);
    const current = Math.max(known, version);
    remember(subject, current);
    // Kept as long as a token signed just before the change can be alive, plus a minute of clock skew.
    await cache.set(keyOf(subject), String(current), maxLifetimeSeconds + 60);
  }

  async function versionOf(subject: string): Promise<number> {
    const memo = remembered.get(subject);
    if (memo && Date.now() - memo.readAt < checkMs) return memo.version;
    const stored = Number((await cache.get(keyOf(subject))) ?? 0);
    const version = Number.isFinite(stored) ? stored : 0;
    remember(subject, version);
    return version;
  }

  return {
    endSessions: publish,
    async isRevoked(subject, version) {
      const current = await versionOf(subject);
      return current > 0 && (version ?? 0) < current;
    },
  };
}
