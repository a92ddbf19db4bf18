import type { Cache } from './cache/cache.js';

/**
 * Ends a subject's sessions across every subgraph. Tokens are JWTs each subgraph verifies by
 * itself, so a password change cannot reach into them; instead the account's owner publishes a
 * per-subject "not before" second through the shared cache (Redis with REDIS_URL; otherwise the
 * process's own cache, which in `svc all` every service shares), and every verifier refuses a
 * token of that subject issued (`iat`) before it. Each process remembers what it read for
 * `checkSeconds`, so a revocation reaches another process within that bound (and at once in the
 * process that published it). No subgraph reads another's schema: the owner republishes from its
 * own table at start, so a restarted or flushed cache learns the revocations again.
 */
export interface SessionRevocations {
  /**
   * Ends every session of `subject` from now on: resolves, once the next whole second has begun,
   * to that second (tokens issued from then on are valid again). Seconds because `iat` is.
   */
  endSessions(subject: string): Promise<number>;
  /** Publishes a known "not before" second (a republication at start); older ones are dropped by their expiry. */
  publish(subject: string, notBefore: number): Promise<void>;
  /** Whether a token of `subject` issued at `issuedAt` (seconds; undefined: unknown) has been revoked. */
  isRevoked(subject: string, issuedAt: number | undefined): Promise<boolean>;
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

const keyOf = (subject: string) => `session-not-before:${subject}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createSessionRevocations(options: SessionRevocationOptions): SessionRevocations {
  const { cache, maxLifetimeSeconds } = options;
  const checkMs = (options.checkSeconds ?? 5) * 1000;
  const maxRemembered = options.maxRemembered ?? 10_000;
  const remembered = new Map<string, { notBefore: number; readAt: number }>();
  const remember = (subject: string, notBefore: number) => {
    remembered.delete(subject);
    if (remembered.size >= maxRemembered) remembered.delete(remembered.keys().next().value!);
    remembered.set(subject, { notBefore, readAt: Date.now() });
  };

  async function publish(subject: string, notBefore: number): Promise<void> {
    // 60 s beyond the last moment a token issued before `notBefore` can still be alive (clock skew).
    const ttl = notBefore + maxLifetimeSeconds + 60 - nowSeconds();
    if (ttl <= 0) return;
    const known = remembered.get(subject)?.notBefore ?? 0;
    remember(subject, Math.max(known, notBefore));
    await cache.set(keyOf(subject), String(Math.max(known, notBefore)), ttl);
  }

  async function notBeforeOf(subject: string): Promise<number> {
    const memo = remembered.get(subject);
    if (memo && Date.now() - memo.readAt < checkMs) return memo.notBefore;
    const stored = Number((await cache.get(keyOf(subject))) ?? 0);
    const notBefore = Number.isFinite(stored) ? stored : 0;
    remember(subject, notBefore);
    return notBefore;
  }

  return {
    publish,
    async endSessions(subject) {
      const notBefore = nowSeconds() + 1;
      await publish(subject, notBefore);
      const wait = notBefore * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      return notBefore;
    },
    async isRevoked(subject, issuedAt) {
      const notBefore = await notBeforeOf(subject);
      return notBefore > 0 && (issuedAt === undefined || issuedAt < notBefore);
    },
  };
}
