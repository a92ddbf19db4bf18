import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { openAiErrors, parseInput, type Logger, type MikroORM, type SvcError } from '@svc/kit';
import { apiKeyRequestSchema } from '../contract.js';
import { hashKey, KEY_PREFIX, keyPrefixOf, type ApiKey, type Caller } from '../domain/api-key.js';
import { createKeyStore } from '../store/key-store.js';

/** How long a verified key is trusted without asking the database again. */
export const KEY_CACHE_MS = 10_000;

function invalidKey(): SvcError {
  return openAiErrors.invalidApiKey('Incorrect API key provided. Send Authorization: Bearer sk-svc-... (or the master key for /admin).');
}

/**
 * Virtual keys: `sk-svc-` + 32 random bytes, shown once, stored as SHA-256, each bound to
 * one agent. The master key (SVCLLM_MASTER_KEY) administers budgets and keys.
 */
export function createKeyService(orm: MikroORM, masterKey: string, log: Logger, now: () => number = Date.now) {
  const master = Buffer.from(hashKey(masterKey), 'hex');
  const keys = createKeyStore(orm);
  // Verified keys, by hash. A revocation clears this process's entry at once; other replicas
  // notice within KEY_CACHE_MS. last_used_at is refreshed at most once a minute per key.
  const verified = new Map<string, { caller: Caller & { kind: 'agent' }; until: number; touchedAt: number }>();

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
          keys.touch(hit.caller.keyId).catch((error: unknown) => log.warn({ err: error }, 'could not record key use'));
        }
        return hit.caller;
      }
      const used = await keys.use(hash);
      if (!used) {
        verified.delete(hash);
        throw invalidKey();
      }
      const caller = { kind: 'agent' as const, agentCode: used.agentCode, keyId: used.keyId };
      if (verified.size > 10_000) verified.clear();
      verified.set(hash, { caller, until: t + KEY_CACHE_MS, touchedAt: t });
      return caller;
    },

    async create(agentCode: unknown, name: unknown): Promise<ApiKey & { key: string }> {
      const request = parseInput(apiKeyRequestSchema, { agentCode: agentCode ?? undefined, name }, '', { describe: true });
      const label = request.name?.trim() || 'default';
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      const stored = await keys.insert({ id, agentCode: request.agentCode, name: label, keyHash: hashKey(key), keyPrefix: keyPrefixOf(key) });
      log.info({ keyId: id, agentCode: request.agentCode }, 'API key created');
      return { ...stored, key };
    },

    list: (agentCode?: string): Promise<ApiKey[]> => keys.list(agentCode),

    async revoke(id: string): Promise<ApiKey> {
      const revoked = await keys.revoke(id);
      if (!revoked) throw openAiErrors.notFound(`No API key with id ${JSON.stringify(id)}`, 'id', 'not_found');
      for (const [hash, entry] of verified) if (entry.caller.keyId === id) verified.delete(hash);
      log.info({ keyId: id }, 'API key revoked');
      return revoked;
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
