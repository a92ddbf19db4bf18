import { parseArgs } from 'node:util';
import { bridgeUrl, type PlatformConfig } from '@svc/kit';

/**
 * `svc users add|list|update|disable|enable|passwd`: local accounts through the running
 * platform's admin API (`/api/v1/admin/users` on the REST bridge, SVC_BRIDGE_URL). Through the
 * API and not the database because that works in every mode: the embedded database lives inside
 * the running `svc all` process, and only the service that owns the accounts can end a changed
 * account's sessions everywhere. Credentials: SVC_TOKEN (an admin's access token), else a login
 * as SVC_ADMIN_USERNAME / SVC_ADMIN_PASSWORD. Passwords are read from standard input (one line),
 * never from the command line, where other users of the machine and the shell history would see them.
 */
export const USERS_USAGE = `usage: svc users <command>
  list                                   the accounts (within your tenants and sites)
  add <username> --roles r1,r2 [--tenants t1,t2|*] [--sites s1|*]
                                         a new account; its password is read from stdin
  update <username> [--roles ...] [--tenants ...] [--sites ...]
                                         new grants (its sessions end)
  disable <username> | enable <username>
  passwd <username>                      a new password, read from stdin (its sessions end)
  roles: admin, analyst, reviewer, editor, crawler. Needs a running platform (SVC_BRIDGE_URL)
  and an admin: SVC_TOKEN, or SVC_ADMIN_USERNAME / SVC_ADMIN_PASSWORD.`;

export class UsageError extends Error {}

interface Io {
  fetch: typeof fetch;
  /** The password line, from stdin (prompted without echo on a terminal). */
  readPassword(prompt: string): Promise<string>;
  out(text: string): void;
}

interface Account {
  username: string;
  roles: string[];
  tenants: string[];
  sites: string[];
  disabled: boolean;
}

const list = (value: string | undefined) => (value === undefined ? undefined : value === '*' ? '*' : value.split(',').map((v) => v.trim()).filter(Boolean));

function table(accounts: Account[]): string {
  const rows = [['USERNAME', 'ROLES', 'TENANTS', 'SITES', 'STATE'], ...accounts.map((a) => [a.username, a.roles.join(','), a.tenants.join(','), a.sites.join(','), a.disabled ? 'disabled' : 'active'])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export async function runUsersCommand(argv: string[], config: PlatformConfig & { SVC_ADMIN_USERNAME: string; SVC_ADMIN_PASSWORD: string }, io: Io): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { roles: { type: 'string' }, tenants: { type: 'string' }, sites: { type: 'string' } },
  });
  const [command, username, ...rest] = positionals;
  const needsName = ['add', 'update', 'disable', 'enable', 'passwd'];
  if (!command || ![...needsName, 'list'].includes(command)) throw new UsageError(command ? `unknown users command "${command}"` : 'a users command is required');
  if (needsName.includes(command) && !username) throw new UsageError(`svc users ${command} needs a username`);
  if (rest.length || (command === 'list' && username)) throw new UsageError(`unexpected argument "${command === 'list' ? username : rest[0]}"`);
  const base = `${bridgeUrl(config)}/api/v1`;

  async function call(method: string, path: string, body?: unknown, token?: string): Promise<unknown> {
    let response: Response;
    try {
      response = await io.fetch(`${base}${path}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new Error(`the platform's REST bridge at ${base} did not answer (${(error as Error).message}); is it running? (SVC_BRIDGE_URL)`);
    }
    const reply = (await response.json().catch(() => ({}))) as { message?: string; data?: unknown; errors?: { pointer: string; detail: string }[] };
    if (!response.ok) {
      const detail = reply.errors?.length ? `: ${reply.errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}` : '';
      throw new Error(`${response.status} ${reply.message ?? response.statusText}${detail}`);
    }
    return reply.data;
  }

  const token = config.SVC_TOKEN ?? ((await call('POST', '/auth/token', { username: config.SVC_ADMIN_USERNAME, password: config.SVC_ADMIN_PASSWORD })) as { accessToken: string }).accessToken;
  const path = `/admin/users/${encodeURIComponent(username ?? '')}`;
  const grants = { roles: list(values.roles), tenants: list(values.tenants), sites: list(values.sites) };
  const show = (account: Account) => io.out(table([account]));

  switch (command) {
    case 'list':
      io.out(table((await call('GET', '/admin/users', undefined, token)) as Account[]));
      return;
    case 'add': {
      if (!grants.roles) throw new UsageError('svc users add needs --roles (a comma-separated list)');
      const password = await io.readPassword(`password for ${username}: `);
      show((await call('POST', '/admin/users', { username, password, roles: grants.roles, tenants: grants.tenants ?? [], sites: grants.sites ?? [] }, token)) as Account);
      return;
    }
    case 'update': {
      const change = Object.fromEntries(Object.entries(grants).filter(([, v]) => v !== undefined));
      if (!Object.keys(change).length) throw new UsageError('svc users update needs --roles, --tenants or --sites');
      show((await call('PATCH', path, change, token)) as Account);
      return;
    }
    case 'disable':
    case 'enable':
      show((await call('POST', `${path}/${command}`, undefined, token)) as Account);
      return;
    case 'passwd': {
      const password = await io.readPassword(`new password for ${username}: `);
      show((await call('PUT', `${path}/password`, { password }, token)) as Account);
      return;
    }
  }
}
