import type { MikroORM } from '@mikro-orm/postgresql';
import { hashPassword, issueToken, problemsOf, SvcError, verifyPassword, type IssuedToken, type Logger, type Role } from '@svc/kit';
import { tokenRequestSchema } from '../contract.js';
import { AccountEntity } from '../store/entities.js';

export interface AccountServiceDeps {
  orm: MikroORM;
  log: Logger;
  /** HS256 secret for issuing tokens; undefined when tokens come from an external issuer (JWKS). */
  jwtSecret?: string;
  tokenTtlSeconds: number;
}

// Verifying against a throwaway hash keeps unknown usernames as slow as wrong passwords.
const DUMMY_HASH = hashPassword('not-a-real-password');

export function createAccountService(deps: AccountServiceDeps) {
  const { orm, log } = deps;
  return {
    /** Creates the local admin account, or updates its password when the configured one changed. */
    async ensureAdmin(username: string, password: string): Promise<void> {
      const em = orm.em.fork();
      const existing = await em.findOne(AccountEntity, { username });
      if (existing && (await verifyPassword(password, existing.passwordHash))) return;
      const passwordHash = await hashPassword(password);
      if (existing) existing.passwordHash = passwordHash;
      else em.create(AccountEntity, { username, passwordHash, roles: ['admin'], tenants: '*', sites: '*' });
      await em.flush();
      log.info({ username }, existing ? 'admin password updated from configuration' : 'admin account created');
    },

    async issue(username: unknown, password: unknown): Promise<IssuedToken> {
      const request = tokenRequestSchema.safeParse({ username, password });
      if (!request.success) throw new SvcError('BAD_USER_INPUT', 'username and password are required strings (at most 200 and 1024 characters)', { errors: problemsOf(request.error) });
      const { username: name, password: secret } = request.data;
      if (!deps.jwtSecret) throw new SvcError('UNAVAILABLE', 'Tokens are issued by the configured identity provider (SVC_JWKS_URL), not here');
      const account = await orm.em.fork().findOne(AccountEntity, { username: name });
      const ok = account ? await verifyPassword(secret, account.passwordHash) : (await verifyPassword(secret, await DUMMY_HASH), false);
      if (!account || !ok) {
        log.warn({ username: name.slice(0, 64) }, 'login failed');
        throw new SvcError('UNAUTHENTICATED', 'Invalid username or password', { slug: 'invalid-credentials' });
      }
      return issueToken(deps.jwtSecret, { subject: account.username, roles: account.roles as Role[], tenants: account.tenants, sites: account.sites }, deps.tokenTtlSeconds);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
