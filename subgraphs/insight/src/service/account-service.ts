import { hashPassword, issueToken, needsRehash, parseInput, problemsOf, requirePrincipal, SvcError, validationError, verifyPassword, type IssuedToken, type Logger, type Principal, type SessionRevocations } from '@svc/kit';
import { tokenRequestSchema } from '../contract.js';
import { ownPasswordInputSchema } from '../domain/account.js';
import type { AccountStore } from '../store/account-store.js';
import type { LoginThrottle } from './login-throttle.js';

export interface AccountServiceDeps {
  accounts: AccountStore;
  throttle: LoginThrottle;
  sessions: SessionRevocations;
  log: Logger;
  /** HS256 secret for issuing tokens; undefined when tokens come from an external issuer (JWKS). */
  jwtSecret?: string;
  tokenTtlSeconds: number;
  /** SVC_JWT_MAX_LIFETIME_SECONDS: how far back ended sessions still matter. */
  maxLifetimeSeconds: number;
  /** SVC_ADMIN_USERNAME: its password comes from the configuration. */
  configuredAdmin: string;
  /** The password check (kit's argon2id `verifyPassword`); tests count its calls. */
  verify?: typeof verifyPassword;
}

// Verifying against a throwaway hash keeps unknown usernames as slow as wrong passwords.
const DUMMY_HASH = hashPassword('not-a-real-password');

/** Login, a person's own password change, and the configured admin account. The admin API is manage-users.ts. */
export function createAccountService(deps: AccountServiceDeps) {
  const { accounts, throttle, sessions, log } = deps;
  const verify = deps.verify ?? verifyPassword;
  return {
    /**
     * Creates the configured admin account, or sets its password when the configured one changed
     * (ending its sessions, as any password change does).
     */
    async ensureAdmin(username: string, password: string): Promise<void> {
      const existing = await accounts.find(username);
      if (existing && (await verify(password, existing.passwordHash))) return;
      const passwordHash = await hashPassword(password);
      if (existing) {
        const changed = await accounts.setPassword(username, passwordHash);
        if (changed) await sessions.endSessions(username, changed.sessionVersion);
      } else {
        await accounts.insert({ username, passwordHash, roles: ['admin'], tenants: '*', sites: '*', createdBy: null });
      }
      log.info({ username }, existing ? 'admin password updated from configuration' : 'admin account created');
    },

    /** Tells every verifier again which sessions ended within the longest token lifetime (the shared cache may be new). */
    async republishEndedSessions(): Promise<number> {
      const ended = await accounts.sessionsEndedSince(new Date(Date.now() - deps.maxLifetimeSeconds * 1000));
      await Promise.all(ended.map((a) => sessions.endSessions(a.username, a.sessionVersion)));
      return ended.length;
    },

    /**
     * A person changes their own password, proving it with the current one (throttled like a
     * login): every session of theirs ends, and the answer is a fresh token for this one.
     */
    async changeOwnPassword(principal: Principal | undefined, input: unknown, clientIp?: string): Promise<IssuedToken> {
      const me = requirePrincipal(principal);
      const { currentPassword, newPassword } = parseInput(ownPasswordInputSchema, input);
      if (!deps.jwtSecret) throw new SvcError('UNAVAILABLE', 'Passwords are kept by the configured identity provider (SVC_JWKS_URL), not here');
      if (me.subject === deps.configuredAdmin) throw new SvcError('CONFLICT', `The account ${me.subject} is the configured admin (SVC_ADMIN_USERNAME): its password can change only through SVC_ADMIN_PASSWORD`);
      const pass = await throttle.enter(me.subject, clientIp);
      const account = await accounts.find(me.subject);
      const ok = account ? await verify(currentPassword, account.passwordHash) : (await verify(currentPassword, await DUMMY_HASH), false);
      if (!account || account.disabled) {
        await pass.failed();
        throw new SvcError('FORBIDDEN', `${me.subject} is not a local account of this platform: its password is kept where its token was issued`);
      }
      if (!ok) {
        await pass.failed();
        log.warn({ username: me.subject }, 'own password change refused: wrong current password');
        throw validationError([{ pointer: '/currentPassword', detail: 'is not the current password' }], 'currentPassword is not the current password');
      }
      await pass.succeeded();
      const changed = await accounts.setPassword(account.username, await hashPassword(newPassword));
      if (!changed) throw new SvcError('NOT_FOUND', `No account ${account.username}`);
      await sessions.endSessions(account.username, changed.sessionVersion);
      log.info({ username: account.username }, 'own password changed; its sessions ended');
      return issueToken(deps.jwtSecret, { subject: changed.username, roles: changed.roles, tenants: changed.tenants, sites: changed.sites, sessionVersion: changed.sessionVersion }, deps.tokenTtlSeconds);
    },

    async issue(username: unknown, password: unknown, clientIp?: string): Promise<IssuedToken> {
      const request = tokenRequestSchema.safeParse({ username, password });
      if (!request.success) throw new SvcError('BAD_USER_INPUT', 'username and password are required strings (at most 200 and 1024 characters)', { errors: problemsOf(request.error) });
      const { username: name, password: secret } = request.data;
      if (!deps.jwtSecret) throw new SvcError('UNAVAILABLE', 'Tokens are issued by the configured identity provider (SVC_JWKS_URL), not here');
      const pass = await throttle.enter(name, clientIp);
      const account = await accounts.find(name);
      // The same work whatever is wrong: unknown, disabled, or a wrong password.
      const ok = account ? await verify(secret, account.passwordHash) : (await verify(secret, await DUMMY_HASH), false);
      if (!account || !ok || account.disabled) {
        await pass.failed();
        log.warn({ username: name.slice(0, 64) }, 'login failed');
        throw new SvcError('UNAUTHENTICATED', 'Invalid username or password', { slug: 'invalid-credentials' });
      }
      await pass.succeeded();
      if (needsRehash(account.passwordHash) && (await accounts.rehash(account.username, account.passwordHash, await hashPassword(secret)))) {
        log.info({ username: account.username }, 'password rehashed with argon2id');
      }
      // The version read with the hash just verified: a change since raised it, and this token is refused like every earlier one.
      return issueToken(deps.jwtSecret, { subject: account.username, roles: account.roles, tenants: account.tenants, sites: account.sites, sessionVersion: account.sessionVersion }, deps.tokenTtlSeconds);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
