import type { MikroORM } from '@svc/kit';
import type { ApiKey } from '../domain/api-key.js';
import type { RateLimits } from '../domain/rate-limits.js';

type Row = Record<string, unknown>;

const limit = (value: unknown) => (value === null || value === undefined ? null : Number(value));
/** The limits of a row's `<prefix>rpm_limit`, `<prefix>tpm_limit` and `<prefix>concurrency_limit`. */
export const limitsOf = (r: Row, prefix = ''): RateLimits => ({ requestsPerMinute: limit(r[`${prefix}rpm_limit`]), tokensPerMinute: limit(r[`${prefix}tpm_limit`]), maxConcurrent: limit(r[`${prefix}concurrency_limit`]) });

const toApiKey = (r: Row): ApiKey => ({
  id: String(r.id),
  agentCode: String(r.agent_code),
  name: String(r.name),
  keyPrefix: String(r.key_prefix),
  createdAt: new Date(String(r.created_at)),
  lastUsedAt: r.last_used_at ? new Date(String(r.last_used_at)) : null,
  revokedAt: r.revoked_at ? new Date(String(r.revoked_at)) : null,
  limits: limitsOf(r),
});

/** `case when <set> then <value>` parameters for the three limits, in column order. */
export const limitParams = (change: Partial<RateLimits>) => [
  change.requestsPerMinute !== undefined, change.requestsPerMinute ?? null,
  change.tokensPerMinute !== undefined, change.tokensPerMinute ?? null,
  change.maxConcurrent !== undefined, change.maxConcurrent ?? null,
];

/** Virtual API keys, by the SHA-256 of the key. */
export function createKeyStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    /** The unrevoked key with this hash, marked used now, with its limits and its agent's. */
    async use(keyHash: string): Promise<{ keyId: string; agentCode: string; platformAgent: boolean; keyLimits: RateLimits; agentLimits: RateLimits } | undefined> {
      const rows = await em().execute<Row[]>(
        `update llm.api_key k set last_used_at = now() from llm.agent a
          where a.code = k.agent_code and k.key_hash = ? and k.revoked_at is null
          returning k.id, k.agent_code, a.tenant_id is null as platform_agent, k.rpm_limit, k.tpm_limit, k.concurrency_limit,
                    a.rpm_limit as agent_rpm_limit, a.tpm_limit as agent_tpm_limit, a.concurrency_limit as agent_concurrency_limit`,
        [keyHash],
      );
      const row = rows[0];
      return row ? { keyId: String(row.id), agentCode: String(row.agent_code), platformAgent: row.platform_agent === true, keyLimits: limitsOf(row), agentLimits: limitsOf(row, 'agent_') } : undefined;
    },

    /** Sets the key's limits (undefined members keep theirs); undefined when there is no such key. */
    async setLimits(id: string, change: Partial<RateLimits>): Promise<ApiKey | undefined> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
      const rows = await em().execute<Row[]>(
        `update llm.api_key set rpm_limit = case when ? then ? else rpm_limit end, tpm_limit = case when ? then ? else tpm_limit end,
                concurrency_limit = case when ? then ? else concurrency_limit end
          where id = ? returning *`,
        [...limitParams(change), id],
      );
      return rows[0] ? toApiKey(rows[0]) : undefined;
    },

    /** Sets the agent's limits (creating the agent without a budget if needed); undefined members keep theirs. */
    async setAgentLimits(agentCode: string, change: Partial<RateLimits>): Promise<RateLimits> {
      await em().execute('insert into llm.agent (code) values (?) on conflict do nothing', [agentCode]);
      const rows = await em().execute<Row[]>(
        `update llm.agent set rpm_limit = case when ? then ? else rpm_limit end, tpm_limit = case when ? then ? else tpm_limit end,
                concurrency_limit = case when ? then ? else concurrency_limit end, updated_at = now()
          where code = ? returning rpm_limit, tpm_limit, concurrency_limit`,
        [...limitParams(change), agentCode],
      );
      return limitsOf(rows[0]!);
    },

    /** The agent's limits; none for an unknown agent. */
    async agentLimits(agentCode: string): Promise<RateLimits> {
      const rows = await em().execute<Row[]>('select rpm_limit, tpm_limit, concurrency_limit from llm.agent where code = ?', [agentCode]);
      return limitsOf(rows[0] ?? {});
    },

    async touch(keyId: string): Promise<void> {
      await em().execute('update llm.api_key set last_used_at = now() where id = ?', [keyId]);
    },

    /** Stores a key for the agent, creating the agent (without a budget) if needed. */
    async insert(key: { id: string; agentCode: string; name: string; keyHash: string; keyPrefix: string }): Promise<ApiKey> {
      await em().execute('insert into llm.agent (code) values (?) on conflict do nothing', [key.agentCode]);
      const rows = await em().execute<Row[]>(
        'insert into llm.api_key (id, agent_code, name, key_hash, key_prefix) values (?, ?, ?, ?, ?) returning *',
        [key.id, key.agentCode, key.name, key.keyHash, key.keyPrefix],
      );
      return toApiKey(rows[0]!);
    },

    /** The agent of the key with this id; undefined when there is no such key. */
    async agentOf(id: string): Promise<string | undefined> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
      const rows = await em().execute<Row[]>('select agent_code from llm.api_key where id = ?', [id]);
      return rows[0] ? String(rows[0].agent_code) : undefined;
    },

    async list(agentCode?: string): Promise<ApiKey[]> {
      const rows = await em().execute<Row[]>(
        'select * from llm.api_key where (?::text is null or agent_code = ?) order by created_at',
        [agentCode ?? null, agentCode ?? null],
      );
      return rows.map(toApiKey);
    },

    /** Revokes the key (keeping the first revocation time); undefined when there is no such key. */
    async revoke(id: string): Promise<ApiKey | undefined> {
      if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
      const rows = await em().execute<Row[]>('update llm.api_key set revoked_at = coalesce(revoked_at, now()) where id = ? returning *', [id]);
      return rows[0] ? toApiKey(rows[0]) : undefined;
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
