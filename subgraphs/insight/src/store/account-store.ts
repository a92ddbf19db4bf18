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
    sessionVersion: Number(r.session_version ?? 0),
  };
}

/** An account after a change: what the admin API shows, and the session version its tokens must now carry. */
export type ChangedAccount = Account & { sessionVersion: number };

const changed = (account: StoredAccount | undefined): ChangedAccount | undefined => (account ? { ...publicOf(account)!, sessionVersion: account.sessionVersion } : undefined);

/** `session_version` and `sessions_ended_at` when a change ends the account's sessions (the first parameter: whether it does). */
const ENDING = `session_version = session_version + case when ? then 1 else 0 end,
             sessions_ended_at = case when ? then now() else sessions_ended_at end`;

/** Without the hash: what leaves the store for anything but login. */
function publicOf(account: StoredAccount | undefined): Account | undefined {
  if (!account) return undefined;
  const { passwordHash: _hash, sessionVersion: _version, ...rest } = account;
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

    /**
     * Changes the given grants; with `endSessions`, in the same statement, raises the session
     * version (session-revocation.ts) and records when.
     */
    async updateGrants(username: string, grants: Partial<Grants>, endSessions: boolean): Promise<ChangedAccount | undefined> {
      return changed(
        await one(
          `update insight.account set roles = coalesce(?::jsonb, roles), tenants = coalesce(?::jsonb, tenants), sites = coalesce(?::jsonb, sites),
             ${ENDING}, updated_at = now()
           where username = ? returning *`,
          [grants.roles ? JSON.stringify(grants.roles) : null, grants.tenants ? JSON.stringify(grants.tenants) : null, grants.sites ? JSON.stringify(grants.sites) : null, endSessions, endSessions, username],
        ),
      );
    },

    /** A new hash, ending the account's sessions (raising its session version) in the same statement. */
    async setPassword(username: string, passwordHash: string): Promise<ChangedAccount | undefined> {
      return changed(await one(`update insight.account set password_hash = ?, ${ENDING}, updated_at = now() where username = ? returning *`, [passwordHash, true, true, username]));
    },

    /**
     * The same password hashed anew (argon2id) at login, only while the hash is still the one the
     * login verified: a password changed meanwhile is never put back. Sessions go on.
     */
    async rehash(username: string, verifiedHash: string, passwordHash: string): Promise<boolean> {
      return (await execute('update insight.account set password_hash = ?, updated_at = now() where username = ? and password_hash = ? returning username', [passwordHash, username, verifiedHash])).length === 1;
    },

    /** Disables (ending its sessions in the same statement) or enables the account. */
    async setDisabled(username: string, disabled: boolean): Promise<ChangedAccount | undefined> {
      return changed(
        await one(
          `update insight.account set disabled_at = case when ? then coalesce(disabled_at, now()) else null end,
             ${ENDING}, updated_at = now()
           where username = ? returning *`,
          [disabled, disabled, disabled, username],
        ),
      );
    },

    /** Accounts whose sessions ended after `since`: what the verifiers must still be told at start. */
    async sessionsEndedSince(since: Date): Promise<{ username: string; sessionVersion: number }[]> {
      const rows = await execute('select username, session_version from insight.account where sessions_ended_at > ? and session_version > 0', [since]);
      return rows.map((r) => ({ username: String(r.username), sessionVersion: Number(r.session_version) }));
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
