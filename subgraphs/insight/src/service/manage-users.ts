import { hashPassword, parseInput, requireRole, SvcError, type Logger, type Principal, type SessionRevocations } from '@svc/kit';
import { accountInputSchema, accountUpdateSchema, outsideOf, passwordInputSchema, usernameSchema, within, type Account, type Grants } from '../domain/account.js';
import type { AccountStore, ChangedAccount } from '../store/account-store.js';

export interface ManageUsersDeps {
  accounts: AccountStore;
  sessions: SessionRevocations;
  log: Logger;
  /** SVC_ADMIN_USERNAME: that account's password and grants come from the configuration, not this API. */
  configuredAdmin: string;
}

const sameScope = (a: Grants['tenants'], b: Grants['tenants']) => (a === '*' || b === '*' ? a === b : a.length === b.length && a.every((x) => b.includes(x)));

/**
 * The admin API over local accounts (role admin). An admin sees and manages only accounts
 * within its own tenants and sites, and grants only those (domain/account.ts `outsideOf`); an
 * account outside them answers as if it did not exist. A password change, a disable and a change
 * of grants end the account's sessions everywhere (session-revocation.ts). An admin cannot
 * disable itself or take away its own admin role, and the configured admin account
 * (SVC_ADMIN_USERNAME) is changed through the configuration only, so the way back in stays.
 */
export function createManageUsers(deps: ManageUsersDeps) {
  const { accounts, sessions, log } = deps;
  const visible = (admin: Principal, account: Account) => within(admin.tenants, account.tenants) && within(admin.sites, account.sites);

  async function target(admin: Principal, username: unknown): Promise<Account> {
    const name = usernameSchema.safeParse(username);
    const account = name.success ? await accounts.get(name.data) : undefined;
    if (!account || !visible(admin, account)) throw new SvcError('NOT_FOUND', `No user ${JSON.stringify(String(username).slice(0, 64))}`);
    return account;
  }

  function refuseConfigured(account: Account, what: string): void {
    if (account.username === deps.configuredAdmin) {
      throw new SvcError('CONFLICT', `The account ${account.username} is the configured admin (SVC_ADMIN_USERNAME): its ${what} can change only through the configuration`);
    }
  }

  function refuseOutside(admin: Principal, grants: Pick<Grants, 'tenants' | 'sites'>): void {
    const missing = outsideOf(admin, grants);
    if (missing.length) throw new SvcError('FORBIDDEN', `You can grant only tenants and sites you hold yourself; you lack ${missing.join(' and ')}`);
  }

  /** Tells every verifier the version the change raised (tokens of lower versions end), and answers the account. */
  async function ended(account: ChangedAccount | undefined): Promise<Account> {
    await sessions.endSessions(account!.username, account!.sessionVersion);
    const { sessionVersion: _version, ...shown } = account!;
    return shown;
  }

  return {
    async list(principal: Principal | undefined): Promise<Account[]> {
      const admin = requireRole(principal);
      return (await accounts.list()).filter((a) => visible(admin, a));
    },

    async get(principal: Principal | undefined, username: unknown): Promise<Account> {
      return target(requireRole(principal), username);
    },

    async create(principal: Principal | undefined, input: unknown): Promise<Account> {
      const admin = requireRole(principal);
      const account = parseInput(accountInputSchema, input);
      refuseOutside(admin, account);
      const created = await accounts.insert({ ...account, passwordHash: await hashPassword(account.password), createdBy: admin.subject });
      if (!created) throw new SvcError('CONFLICT', `The username ${account.username} is taken`);
      log.info({ username: created.username, roles: created.roles, by: admin.subject }, 'account created');
      return created;
    },

    async update(principal: Principal | undefined, username: unknown, input: unknown): Promise<Account> {
      const admin = requireRole(principal);
      const account = await target(admin, username);
      const change = parseInput(accountUpdateSchema, input);
      refuseConfigured(account, 'grants');
      refuseOutside(admin, { tenants: change.tenants ?? [], sites: change.sites ?? [] });
      if (account.username === admin.subject && change.roles && !change.roles.includes('admin')) {
        throw new SvcError('CONFLICT', 'You cannot take the admin role from yourself; another admin can');
      }
      const changed =
        (change.roles && (change.roles.length !== account.roles.length || change.roles.some((r) => !account.roles.includes(r)))) ||
        (change.tenants && !sameScope(change.tenants, account.tenants)) ||
        (change.sites && !sameScope(change.sites, account.sites));
      if (!changed) return account;
      // Tokens carry the grants: the old ones must end, or a removed role would live on until they expire.
      const updated = await ended(await accounts.updateGrants(account.username, change, true));
      log.info({ username: account.username, roles: updated.roles, by: admin.subject }, 'account grants changed; its sessions ended');
      return updated;
    },

    async setDisabled(principal: Principal | undefined, username: unknown, disabled: boolean): Promise<Account> {
      const admin = requireRole(principal);
      const account = await target(admin, username);
      if (disabled) {
        refuseConfigured(account, 'state');
        if (account.username === admin.subject) throw new SvcError('CONFLICT', 'You cannot disable your own account; another admin can');
      }
      if (account.disabled === disabled) return account;
      const changedAccount = await accounts.setDisabled(account.username, disabled);
      const updated = disabled ? await ended(changedAccount) : (await accounts.get(account.username))!;
      log.info({ username: account.username, by: admin.subject }, disabled ? 'account disabled; its sessions ended' : 'account enabled');
      return updated;
    },

    async setPassword(principal: Principal | undefined, username: unknown, input: unknown): Promise<Account> {
      const admin = requireRole(principal);
      const account = await target(admin, username);
      const { password } = parseInput(passwordInputSchema, input);
      refuseConfigured(account, 'password');
      const passwordHash = await hashPassword(password);
      const updated = await ended(await accounts.setPassword(account.username, passwordHash));
      log.info({ username: account.username, by: admin.subject }, 'password changed; its sessions ended');
      return updated;
    },
  };
}

export type ManageUsers = ReturnType<typeof createManageUsers>;
