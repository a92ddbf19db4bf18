import { createHash } from 'node:crypto';

export const KEY_PREFIX = 'sk-svc-';

/** Who is calling the gateway: the master key (administration) or an agent's virtual key. */
export type Caller = { kind: 'master' } | { kind: 'agent'; agentCode: string; keyId: string };

/** A virtual key as stored: never the key itself, only its hash and first characters. */
export interface ApiKey {
  id: string;
  agentCode: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** SHA-256 in hex: the key's own 32 random bytes make a slow hash unnecessary. */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** What is shown of a key after its creation, to recognise it. */
export const keyPrefixOf = (key: string): string => `${key.slice(0, 11)}...`;
