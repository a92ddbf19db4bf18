import { describe, expect, it } from '@jest/globals';
import { createLogger, createMemoryCache, createSessionRevocations, hashPassword, SvcError } from '@svc/kit';
import type { StoredAccount } from '../domain/account.js';
import type { AccountStore } from '../store/account-store.js';
import { createAccountService } from './account-service.js';
import { createLoginThrottle } from './login-throttle.js';

const SECRET = 'test-secret-that-is-at-least-32-characters';

/** The service over an in-memory account list (the store's SQL is tested against PostgreSQL in test/src/accounts.test.ts). */
async function serviceWith(accounts: Record<string, { password: string; disabled?: boolean }>) {
  const stored = new Map<string, StoredAccount>();
  for (const [username, a] of Object.entries(accounts)) {
    const now = new Date();
    stored.set(username, { username, passwordHash: await hashPassword(a.password), roles: ['analyst'], tenants: ['t1'], sites: [], disabled: !!a.disabled, createdBy: null, createdAt: now, updatedAt: now, sessionsEndedAt: null });
  }
  const store = { find: async (username: string) => stored.get(username) } as unknown as AccountStore;
  const log = createLogger({ level: 'silent' });
  const throttle = createLoginThrottle({ gates: createMemoryCache(), settings: { usernameAttempts: 1000, addressAttempts: 1000, firstDelaySeconds: 1, maxDelaySeconds: 10, idleSeconds: 60 }, log });
  const sessions = createSessionRevocations({ cache: createMemoryCache(), maxLifetimeSeconds: 3600 });
  return createAccountService({ accounts: store, throttle, sessions, log, jwtSecret: SECRET, tokenTtlSeconds: 600, maxLifetimeSeconds: 3600, configuredAdmin: 'admin' });
}

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    return error as SvcError;
  }
  throw new Error('expected a failure');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

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

  it('takes as long for an unknown username as for a wrong password: both verify one argon2id hash', async () => {
    const service = await serviceWith({ ann: { password: 'ann-password' } });
    const time = async (username: string) => {
      const started = process.hrtime.bigint();
      await failure(service.issue(username, 'wrong-password'));
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    await time('ann'); // warm-up
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 7; i++) {
      unknown.push(await time(`nobody-${i}`));
      wrong.push(await time('ann'));
    }
    const ratio = median(unknown) / median(wrong);
    // An unknown user without the throwaway hash would answer in well under a tenth of the time.
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
