import type { MikroORM, Role } from '@svc/kit';
import type { Account, Grants, Scope, StoredAccount } from '../domain/account.js';
import type { Row } from './rows.js';

// jsonb arrives parsed (a scope of "*" as the string "*"), or as its text from some drivers.
const json = <T>(v: unknown): T => (typeof v === 'string' && v !== '*' ? JSON.parse(v) : v) as T;
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));

function toAccount(r: Row): StoredAccount {
  return {
    username: String(r.username),
    passwordHash: String(r.password_hash),
    roles: json<Role[]>(r.roles),
    tenants: json<Scope>(r.tenants),
    sites: json<Scope>(r.sites),
    disabled: r.disabled_at !== null && r.disabled_at !== undefined,
    createdBy: (r.created_by as string | null) ?? null,
    createdAt: new Date(String(r.created_at)),
    updatedAt: new Date(String(r.updated_at)),
    sessionsEndedAt: date(r.sessions_ended_at),
  };
}

/** Without the hash: what leaves the store for anything but login. */
function publicOf(account: StoredAccount | undefined): Account | undefined {
  if (!account) return undefined;
  const { passwordHash: _hash, ...rest } = account;
  return rest;
}

/** Local accounts (`insight.account`): login, and the admin API's users. */
export function createAccountStore(orm: MikroORM) {
  const execute = (sql: string, params: unknown[] = []) => orm.em.fork().execute<Row[]>(sql, params);
  const one = async (sql: string, params: unknown[]) => (await execute(sql, params)).map(toAccount)[0];
  return {
    /** With its password hash, for login. */
    find(username: string): Promise<StoredAccount | undefined> {
      return one('select * from insight.account where username = ?', [username]);
    },

    async get(username: string): Promise<Account | undefined> {
      return publicOf(await this.find(username));
    },

    async list(): Promise<Account[]> {
      return (await execute('select * from insight.account order by username')).map((r) => publicOf(toAccount(r))!);
    },

    /** Undefined when the username is taken. */
    async insert(account: Grants & { username: string; passwordHash: string; createdBy: string | null }): Promise<Account | undefined> {
      return publicOf(
        await one(
          `insert into insight.account (id, username, password_hash, roles, tenants, sites, created_by, created_at, updated_at)
           values (gen_random_uuid(), ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, now(), now())
           on conflict (username) do nothing returning *`,
          [account.username, account.passwordHash, JSON.stringify(account.roles), JSON.stringify(account.tenants), JSON.stringify(account.sites), account.createdBy],
        ),
      );
    },

    /** Changes the given grants; `sessionsEndedAt` (when set) records that its sessions ended. */
    async updateGrants(username: string, grants: Partial<Grants>, sessionsEndedAt: Date | null): Promise<Account | undefined> {
      return publicOf(
        await one(
          `update insight.account set roles = coalesce(?::jsonb, roles), tenants = coalesce(?::jsonb, tenants), sites = coalesce(?::jsonb, sites),
             sessions_ended_at = coalesce(?, sessions_ended_at), updated_at = now()
           where username = ? returning *`,
          [grants.roles ? JSON.stringify(grants.roles) : null, grants.tenants ? JSON.stringify(grants.tenants) : null, grants.sites ? JSON.stringify(grants.sites) : null, sessionsEndedAt, username],
        ),
      );
    },

    /** A new hash (a change, or a rehash at login with `sessionsEndedAt` null). */
    async setPassword(username: string, passwordHash: string, sessionsEndedAt: Date | null): Promise<Account | undefined> {
      return publicOf(
        await one('update insight.account set password_hash = ?, sessions_ended_at = coalesce(?, sessions_ended_at), updated_at = now() where username = ? returning *', [passwordHash, sessionsEndedAt, username]),
      );
    },

    async setDisabled(username: string, disabled: boolean, sessionsEndedAt: Date | null): Promise<Account | undefined> {
      return publicOf(
        await one(
          `update insight.account set disabled_at = case when ? then coalesce(disabled_at, now()) else null end,
             sessions_ended_at = coalesce(?, sessions_ended_at), updated_at = now()
           where username = ? returning *`,
          [disabled, sessionsEndedAt, username],
        ),
      );
    },

    /** Accounts whose sessions ended after `since`: what the verifiers must still be told at start. */
    async sessionsEndedSince(since: Date): Promise<{ username: string; sessionsEndedAt: Date }[]> {
      const rows = await execute('select username, sessions_ended_at from insight.account where sessions_ended_at > ?', [since]);
      return rows.map((r) => ({ username: String(r.username), sessionsEndedAt: new Date(String(r.sessions_ended_at)) }));
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
