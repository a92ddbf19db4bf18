import { randomBytes } from 'node:crypto';
import type { Cache } from '@svc/kit';

/**
 * Dashboard sessions kept on the server: the cookie holds a random session id, never the token,
 * so signing out deletes the session and every copy of the cookie opens nothing; a token the
 * platform since refused (an account change ended its sessions) deletes it too. Kept in the
 * shared cache (Redis with REDIS_URL, so every dashboard instance and a restart keep them;
 * otherwise this process's memory, and a restart signs everyone out).
 */
export interface DashboardSessions {
  /** A new session for `token`, living `ttlSeconds`; answers its id (the cookie's value). */
  open(token: string, ttlSeconds: number): Promise<string>;
  /** The session's token; undefined for an unknown, ended or expired id. */
  token(id: string | undefined): Promise<string | undefined>;
  /** Ends the session for every copy of its cookie. */
  end(id: string | undefined): Promise<void>;
}

/** Session ids: 32 random bytes, base64url (43 characters). */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const keyOf = (id: string) => `dashboard-session:${id}`;

export function createDashboardSessions(cache: Cache): DashboardSessions {
  return {
    async open(token, ttlSeconds) {
      const id = randomBytes(32).toString('base64url');
      await cache.set(keyOf(id), token, Math.max(1, Math.floor(ttlSeconds)));
      return id;
    },
    async token(id) {
      return id && SESSION_ID.test(id) ? cache.get(keyOf(id)) : undefined;
    },
    async end(id) {
      if (id && SESSION_ID.test(id)) await cache.del(keyOf(id));
    },
  };
}
