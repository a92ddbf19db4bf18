import type { MikroORM } from '@svc/kit';
import type { ApiKey } from '../domain/api-key.js';

type Row = Record<string, unknown>;

const toApiKey = (r: Row): ApiKey => ({
  id: String(r.id),
  agentCode: String(r.agent_code),
  name: String(r.name),
  keyPrefix: String(r.key_prefix),
  createdAt: new Date(String(r.created_at)),
  lastUsedAt: r.last_used_at ? new Date(String(r.last_used_at)) : null,
  revokedAt: r.revoked_at ? new Date(String(r.revoked_at)) : null,
});

/** Virtual API keys, by the SHA-256 of the key. */
export function createKeyStore(orm: MikroORM) {
  const em = () => orm.em.fork();
  return {
    /** The unrevoked key with this hash, marked used now. */
    async use(keyHash: string): Promise<{ keyId: string; agentCode: string } | undefined> {
      const rows = await em().execute<{ id: string; agent_code: string }[]>(
        'update llm.api_key set last_used_at = now() where key_hash = ? and revoked_at is null returning id, agent_code',
        [keyHash],
      );
      return rows[0] ? { keyId: rows[0].id, agentCode: rows[0].agent_code } : undefined;
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
