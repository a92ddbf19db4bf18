import { hash } from 'node:crypto';
import type { RateLimits } from './rate-limits.js';

export const KEY_PREFIX = 'sk-svc-';

/** Who is calling the gateway: the master key (administration) or an agent's virtual key. */
export type Caller = { kind: 'master' } | AgentCaller;

/** An agent's virtual key, with the rate limits of the key and of its agent. */
export interface AgentCaller {
  kind: 'agent';
  /** The agent charged: the key's own, or a platform agent's share for the tenant the call names (agent-code.ts). */
  agentCode: string;
  /** The key's agent belongs to the platform (the analysis and crawl services' callers). */
  platformAgent: boolean;
  keyId: string;
  keyLimits: RateLimits;
  agentLimits: RateLimits;
}

/** A virtual key as stored: never the key itself, only its hash and first characters. */
export interface ApiKey {
  id: string;
  agentCode: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  limits: RateLimits;
}

/** SHA-256 in hex: the key's own 32 random bytes make a slow hash unnecessary (one-shot `hash`: a third of a Hash object's cost, on every request). */
export const hashKey = (key: string): string => hash('sha256', key, 'hex');

/** What is shown of a key after its creation, to recognise it. */
export const keyPrefixOf = (key: string): string => `${key.slice(0, 11)}...`;
