import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { openAiErrors, parseInput, type Logger, type SvcError } from '@svc/kit';
import { apiKeyRequestSchema, rateLimitsChangeSchema } from '../contract.js';
import { AGENT_CODE } from '../domain/agent-code.js';
import type { RateLimits } from '../domain/rate-limits.js';
import { hashKey, KEY_PREFIX, keyPrefixOf, type AgentCaller, type ApiKey, type Caller } from '../domain/api-key.js';
import type { KeyStore } from '../store/key-store.js';

/** How long a verified key is trusted without asking the database again. */
export const KEY_CACHE_MS = 10_000;

function invalidKey(): SvcError {
  return openAiErrors.invalidApiKey('Incorrect API key provided. Send Authorization: Bearer sk-svc-... (or the master key for /admin).');
}

/**
 * Virtual keys: `sk-svc-` + 32 random bytes, shown once, stored as SHA-256, each bound to
 * one agent. The master key (SVCLLM_MASTER_KEY) administers budgets and keys.
 */
export function createKeyService(keys: KeyStore, masterKey: string, log: Logger, now: () => number = Date.now) {
  const master = Buffer.from(hashKey(masterKey), 'hex');
  // Verified keys, by hash. A revocation clears this process's entry at once; other replicas
  // notice within KEY_CACHE_MS. last_used_at is refreshed at most once a minute per key.
  // Limits travel with the verified key: a change clears this process's entries at once, other
  // replicas apply it within KEY_CACHE_MS.
  const verified = new Map<string, { caller: AgentCaller; until: number; touchedAt: number }>();
  const forget = (match: (caller: AgentCaller) => boolean) => {
    for (const [hash, entry] of verified) if (match(entry.caller)) verified.delete(hash);
  };
  const parseLimits = (input: unknown): Partial<RateLimits> => {
    const parsed = parseInput(rateLimitsChangeSchema, Object.fromEntries(Object.entries((input ?? {}) as object).filter(([, v]) => v !== undefined)), '', { describe: true });
    return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== undefined)) as Partial<RateLimits>;
  };

  const checkCreate = (agentCode: unknown, name: unknown) => parseInput(apiKeyRequestSchema, { agentCode: agentCode ?? undefined, name }, '', { describe: true });
  function checkAgentLimits(agentCode: unknown, input: unknown): Partial<RateLimits> {
    if (typeof agentCode !== 'string' || !AGENT_CODE.test(agentCode)) throw openAiErrors.invalidRequest(`agentCode must be letters, digits, . _ - (at most 64), or a platform agent share <agent>:<tenant>; got ${JSON.stringify(agentCode)}`, 'agentCode', null, { status: 422 });
    return parseLimits(input);
  }

  return {
    isGatewayCredential: (bearer: string) => bearer.startsWith(KEY_PREFIX) || timingSafeEqual(Buffer.from(hashKey(bearer), 'hex'), master),

    async authenticate(bearer: string | undefined): Promise<Caller> {
      if (!bearer) throw invalidKey();
      const hash = hashKey(bearer);
      if (timingSafeEqual(Buffer.from(hash, 'hex'), master)) return { kind: 'master' };
      if (!bearer.startsWith(KEY_PREFIX)) throw invalidKey();
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
      const caller: AgentCaller = { kind: 'agent', ...used };
      if (verified.size > 10_000) verified.clear();
      verified.set(hash, { caller, until: t + KEY_CACHE_MS, touchedAt: t });
      return caller;
    },

    /** Validates a key request (422 naming the member), as create does first. */
    checkCreate,

    /** Validates an agent's limits change (422 naming the member), as setAgentLimits does first. */
    checkAgentLimits,

    async create(agentCode: unknown, name: unknown): Promise<ApiKey & { key: string }> {
      const request = checkCreate(agentCode, name);
      const label = request.name?.trim() || 'default';
      const key = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
      const id = randomUUID();
      const stored = await keys.insert({ id, agentCode: request.agentCode, name: label, keyHash: hashKey(key), keyPrefix: keyPrefixOf(key) });
      log.info({ keyId: id, agentCode: request.agentCode }, 'API key created');
      return { ...stored, key };
    },

    list: (agentCode?: string): Promise<ApiKey[]> => keys.list(agentCode),

    /** The agent of the key with this id; undefined when there is none. */
    agentOf: (id: string): Promise<string | undefined> => keys.agentOf(id),

    /** Sets a key's rate limits (absent members keep theirs, null removes one); 404 for an unknown key. */
    async setKeyLimits(id: string, input: unknown): Promise<RateLimits> {
      const change = parseLimits(input);
      const key = await keys.setLimits(id, change);
      if (!key) throw openAiErrors.notFound(`No API key with id ${JSON.stringify(id)}`, 'id', 'not_found');
      forget((caller) => caller.keyId === id);
      log.info({ keyId: id, limits: key.limits }, 'key rate limits set');
      return key.limits;
    },

    /** Sets an agent's rate limits, shared by all its keys (creating the agent if needed). */
    async setAgentLimits(agentCode: string, input: unknown): Promise<RateLimits> {
      const change = checkAgentLimits(agentCode, input);
      const limits = await keys.setAgentLimits(agentCode, change);
      forget((caller) => caller.agentCode === agentCode);
      log.info({ agentCode, limits }, 'agent rate limits set');
      return limits;
    },

    agentLimits: (agentCode: string): Promise<RateLimits> => keys.agentLimits(agentCode),

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
