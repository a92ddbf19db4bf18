import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { SvcError, validationError, type Logger } from '@svc/kit';

export const KEY_PREFIX = 'sk-svc-';

/** Who is calling the gateway: the master key (administration) or an agent's virtual key. */
export type Caller = { kind: 'master' } | { kind: 'agent'; agentCode: string; keyId: string };

export interface ApiKeyView {
  id: string;
  agentCode: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** How long a verified key is trusted without asking the database again. */
export const KEY_CACHE_MS = 10_000;

const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const AGENT_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function invalidKey(): SvcError {
  return new SvcError('UNAUTHENTICATED', 'Incorrect API key provided. Send Authorization: Bearer sk-svc-... (or the master key for /admin).', {
    slug: 'invalid-api-key',
    details: { type: 'invalid_request_error', param: null, openaiCode: 'invalid_api_key' },
  });
}

/**
 * Virtual keys: `sk-svc-` + 32 random bytes, shown once, stored as SHA-256 (the key's own
 * entropy makes a slow hash unnecessary), each bound to one agent. The master key
 * (SVCLLM_MASTER_KEY) administers budgets and keys.
 */
export function createKeyService(orm: MikroORM, masterKey: string, log: Logger, now: () => number = Date.now) {
  const master = Buffer.from(hashKey(masterKey), 'hex');
  const em = () => orm.em.fork();
  // Verified keys, by hash. A revocation clears this process's entry at once; other replicas
  // notice within KEY_CACHE_MS. last_used_at is refreshed at most once a minute per key.
  const verified = new Map<string, { caller: Caller & { kind: 'agent' }; until: number; touchedAt: number }>();
  const toView = (r: Record<string, unknown>): ApiKeyView => ({
    id: String(r.id),
    agentCode: String(r.agent_code),
    name: String(r.name),
    keyPrefix: String(r.key_prefix),
    createdAt: new Date(String(r.created_at)),
    lastUsedAt: r.last_used_at ? new Date(String(r.last_used_at)) : null,
    revokedAt: r.revoked_at ? new Date(String(r.revoked_at)) : null,
  });

  return {
    isGatewayCredential: (bearer: string) => bearer.startsWith(KEY_PREFIX) || timingSafeEqual(Buffer.from(hashKey(bearer), 'hex'), master),

    async authenticate(bearer: string | undefined): Promise<Caller> {
      if (!bearer) throw invalidKey();
      if (timingSafeEqual(Buffer.from(hashKey(bearer), 'hex'), master)) return { kind: 'master' };
      if (!bearer.startsWith(KEY_PREFIX)) throw invalidKey();
      const hash = hashKey(bearer);
      const t = now();
      const hit = verified.get(hash);
      if (hit && hit.until > t) {
        if (t - hit.touchedAt > 60_000) {
          hit.touchedAt = t;
          em().execute('update llm.api_key set last_used_at = now() where id = ?', [hit.caller.keyId]).catch((error: unknown) => log.warn({ err: error }, 'could not record key use'));
        }
        return hit.caller;
      }
      const rows = await em().execute<{ id: string; agent_code: string }[]>(
        'update llm.api_key set last_used_at = now() where key_hash = ? and revoked_at is null returning id, agent_code',
        [hash],
      );
      if (!rows[0]) {
        verified.delete(hash);
        throw invalidKey();
      }
      const caller = { kind: 'agent' as const, agentCode: rows[0].agent_code, keyId: rows[0].id };
      if (verified.size > 10_000) verified.clear();
      verified.set(hash, { caller, until: t + KEY_CACHE_MS, touchedAt: t });
      return caller;
    },

    async create(agentCode: unknown, name: unknown): Promise<ApiKeyView & { key: string }> {
      if (typeof agentCode !== 'string' || !AGENT_CODE.test(agentCode)) throw validationError([{ pointer: '/agentCode', detail: `agentCode must be letters, digits, . _ - (at most 64); got ${JSON.stringify(agentCode)}` }]);
      const label = typeof name === 'string' && name.trim() ? name.trim().slice(0, 100) : 'default';
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      await em().execute('insert into llm.agent (code) values (?) on conflict do nothing', [agentCode]);
      const rows = await em().execute<Record<string, unknown>[]>(
        'insert into llm.api_key (id, agent_code, name, key_hash, key_prefix) values (?, ?, ?, ?, ?) returning *',
        [id, agentCode, label, hashKey(key), `${key.slice(0, 11)}...`],
      );
      log.info({ keyId: id, agentCode }, 'API key created');
      return { ...toView(rows[0]!), key };
    },

    async list(agentCode?: string): Promise<ApiKeyView[]> {
      const rows = await em().execute<Record<string, unknown>[]>(
        'select * from llm.api_key where (?::text is null or agent_code = ?) order by created_at',
        [agentCode ?? null, agentCode ?? null],
      );
      return rows.map(toView);
    },

    async revoke(id: string): Promise<ApiKeyView> {
      const rows = /^[0-9a-f-]{36}$/i.test(id)
        ? await em().execute<Record<string, unknown>[]>('update llm.api_key set revoked_at = coalesce(revoked_at, now()) where id = ? returning *', [id])
        : [];
      if (!rows[0]) throw new SvcError('NOT_FOUND', `No API key with id ${JSON.stringify(id)}`, { details: { type: 'invalid_request_error', param: 'id', openaiCode: 'not_found' } });
      for (const [hash, entry] of verified) if (entry.caller.keyId === id) verified.delete(hash);
      log.info({ keyId: id }, 'API key revoked');
      return toView(rows[0]);
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
