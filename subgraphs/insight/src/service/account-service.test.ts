import { describe, expect, it } from '@jest/globals';
import { createLogger, createMemoryCache, createSessionRevocations, hashPassword, SvcError, verifyPassword } from '@svc/kit';
import type { StoredAccount } from '../domain/account.js';
import type { AccountStore } from '../store/account-store.js';
import { createAccountService } from './account-service.js';
import { createLoginThrottle } from './login-throttle.js';

const SECRET = 'test-secret-that-is-at-least-32-characters';

/** The service over an in-memory account list (the store's SQL is tested against PostgreSQL in test/src/accounts.test.ts). */
async function serviceWith(accounts: Record<string, { password: string; disabled?: boolean }>, verify?: typeof verifyPassword) {
  const stored = new Map<string, StoredAccount>();
  for (const [username, a] of Object.entries(accounts)) {
    const now = new Date();
    stored.set(username, { username, passwordHash: await hashPassword(a.password), roles: ['analyst'], tenants: ['t1'], sites: [], disabled: !!a.disabled, createdBy: null, createdAt: now, updatedAt: now, sessionsEndedAt: null, sessionVersion: 0 });
  }
  const store = { find: async (username: string) => stored.get(username) } as unknown as AccountStore;
  const log = createLogger({ level: 'silent' });
  const throttle = createLoginThrottle({ gates: createMemoryCache(), settings: { usernameAttempts: 1000, addressAttempts: 1000, firstDelaySeconds: 1, maxDelaySeconds: 10, idleSeconds: 60 }, log });
  const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
  return createAccountService({ accounts: store, throttle, sessions, log, jwtSecret: SECRET, tokenTtlSeconds: 600, maxLifetimeSeconds: 3600, configuredAdmin: 'admin', ...(verify ? { verify } : {}) });
}

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    return error as SvcError;
  }
  throw new Error('expected a failure');
}

describe('login', () => {
  it('answers an unknown user, a wrong password and a disabled account alike', async () => {
    const service = await serviceWith({ ann: { password: 'ann-password' }, dan: { password: 'dan-password', disabled: true } });
    const answers = await Promise.all([service.issue('nobody', 'whatever'), service.issue('ann', 'wrong'), service.issue('dan', 'dan-password')].map(failure));
    for (const error of answers) {
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(error.message).toBe('Invalid username or password');
    }
    expect((await service.issue('ann', 'ann-password')).tokenType).toBe('Bearer');
  });

  // Timing itself is not asserted (it flakes on a loaded machine): the test checks that both paths do the same slow work.
  it('costs an unknown username what a wrong password costs: each verifies exactly one argon2id hash', async () => {
    const checked: string[] = [];
    const counting: typeof verifyPassword = async (password, hash) => {
      checked.push(hash);
      return verifyPassword(password, hash);
    };
    const service = await serviceWith({ ann: { password: 'ann-password' } }, counting);
    await failure(service.issue('nobody', 'wrong-password'));
    await failure(service.issue('ann', 'wrong-password'));
    expect(checked).toHaveLength(2);
    for (const hash of checked) expect(hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    expect(checked[0]!.match(/m=\d+,t=\d+,p=\d+/)![0]).toBe(checked[1]!.match(/m=\d+,t=\d+,p=\d+/)![0]);
  });
});
