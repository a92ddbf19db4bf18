import { SvcError, type BackoffPolicy, type Logger } from '@svc/kit';
import { addressBlockOf } from '../domain/address-block.js';
import type { AttemptGates } from '../store/login-throttle-store.js';

/** The login throttle's settings (SVC_LOGIN_* variables). */
export interface LoginThrottleSettings {
  /** Attempts per username before the delays start. */
  usernameAttempts: number;
  /** Attempts per client address before the delays start. */
  addressAttempts: number;
  /** The first delay, seconds; each further attempt doubles it. */
  firstDelaySeconds: number;
  /** The longest delay, seconds: a username is never closed for longer than this at a time. */
  maxDelaySeconds: number;
  /** Seconds without an attempt after which a username or address is forgotten. */
  idleSeconds: number;
}

export interface LoginThrottleDeps {
  gates: AttemptGates;
  settings: LoginThrottleSettings;
  log: Logger;
}

/** A pass through the throttle: settle it with the login's outcome. */
export interface LoginPass {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

/**
 * Login throttling per username and per client address (an IPv6 address by its /64), counted in gates every instance shares
 * (attempt-gate.ts): past a few attempts each one closes the gate for a doubling delay, and
 * an attempt while closed is a 429 with Retry-After that checks no password. Attempts count as
 * they start, so a concurrent burst cannot outrun the count. A success forgets the username and
 * takes back its own count at the address (so one valid account cannot launder a spray from that
 * address). Delays are capped and keys forgotten when idle: limits always end by time, so an
 * attacker can slow a user's login but never lock it for good. One log line when a delay starts.
 */
export function createLoginThrottle(deps: LoginThrottleDeps) {
  const { gates, settings, log } = deps;
  const policy = (attempts: number): BackoffPolicy => ({
    freeAttempts: attempts,
    firstDelayMs: settings.firstDelaySeconds * 1000,
    maxDelayMs: settings.maxDelaySeconds * 1000,
    idleMs: settings.idleSeconds * 1000,
  });
  const byUsername = policy(settings.usernameAttempts);
  const byAddress = policy(settings.addressAttempts);

  return {
    /** Counts a login attempt, or refuses it with RATE_LIMITED (429, Retry-After). */
    async enter(username: string, clientIp: string | undefined): Promise<LoginPass> {
      const userKey = `login:user:${username}`;
      const addressKey = clientIp ? `login:addr:${addressBlockOf(clientIp)}` : undefined;
      const [user, address] = await Promise.all([gates.attempt(userKey, byUsername), addressKey ? gates.attempt(addressKey, byAddress) : undefined]);
      const refused = [user, address].filter((g) => g && !g.allowed);
      if (refused.length) {
        // Whatever the refused gate did not count, the other did: take it back.
        if (user.allowed) await gates.settle(userKey, 'forgive', byUsername);
        if (address?.allowed) await gates.settle(addressKey!, 'forgive', byAddress);
        const retryAfter = Math.max(1, Math.ceil(Math.max(...refused.map((g) => g!.delayMs)) / 1000));
        throw new SvcError('RATE_LIMITED', `Too many login attempts; retry in ${retryAfter} s`, { slug: 'login-throttled', retryAfter });
      }
      return {
        async succeeded() {
          await Promise.all([gates.settle(userKey, 'reset', byUsername), addressKey ? gates.settle(addressKey, 'forgive', byAddress) : undefined]);
        },
        async failed() {
          const closed = [
            user.delayMs > 0 ? { scope: 'username', attempts: user.attempts, delaySeconds: user.delayMs / 1000 } : undefined,
            address && address.delayMs > 0 ? { scope: 'address', attempts: address.attempts, delaySeconds: address.delayMs / 1000 } : undefined,
          ].filter(Boolean);
          for (const gate of closed) log.warn({ ...gate, username: username.slice(0, 64), clientIp: clientIp ?? null }, 'login throttled');
        },
      };
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
