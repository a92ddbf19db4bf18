/**
 * The per-request placeholder vault: the `[KIND_N]` placeholders issued for originals while
 * masking (mask.ts), which unmask.ts restores in answers, whole or delta by delta.
 */

export type PiiKind = 'EMAIL' | 'PHONE' | 'CARD' | 'IBAN' | 'NATIONAL_ID' | 'IP';

/** Remembers original <-> placeholder for one request. Same original text -> same placeholder. */
export interface PiiVault {
  readonly size: number;
  entries(): [placeholder: string, original: string][];
}

/** Masking (or unmasking) could not be done safely; the request must not be sent. */
export class PiiMaskingError extends Error {
  override name = 'PiiMaskingError';
}

/** What a vault holds; only this folder's masking and unmasking reach into it. */
export interface VaultState {
  byPlaceholder: Map<string, string>;
  byOriginal: Map<string, string>;
  /** Placeholder-shaped strings seen literally in masked input: never issued. */
  reserved: Set<string>;
  counters: Map<PiiKind, number>;
  /** Every proper prefix of every issued placeholder (for the stream unmasker). */
  prefixes: Set<string>;
}

const vaultStates = new WeakMap<PiiVault, VaultState>();

class Vault implements PiiVault {
  get size(): number {
    return stateOf(this).byPlaceholder.size;
  }

  entries(): [placeholder: string, original: string][] {
    return [...stateOf(this).byPlaceholder];
  }
}

export function createPiiVault(): PiiVault {
  const vault = new Vault();
  vaultStates.set(vault, { byPlaceholder: new Map(), byOriginal: new Map(), reserved: new Set(), counters: new Map(), prefixes: new Set() });
  return vault;
}

export function stateOf(vault: PiiVault): VaultState {
  const state = vaultStates.get(vault);
  if (!state) throw new PiiMaskingError('not a vault made by createPiiVault()');
  return state;
}

/** The vault's placeholder for `original`, issuing the next free one of its kind the first time. */
export function placeholderFor(state: VaultState, kind: PiiKind, original: string): string {
  const known = state.byOriginal.get(original);
  if (known !== undefined) return known;
  let n = state.counters.get(kind) ?? 0;
  let placeholder: string;
  do {
    n += 1;
    placeholder = `[${kind}_${n}]`;
  } while (state.reserved.has(placeholder) || state.byPlaceholder.has(placeholder));
  state.counters.set(kind, n);
  state.byPlaceholder.set(placeholder, original);
  state.byOriginal.set(original, placeholder);
  for (let i = 1; i < placeholder.length; i++) state.prefixes.add(placeholder.slice(0, i));
  return placeholder;
}

/** Every placeholder-shaped string; each match has exactly one `[` (its first char). */
export const PLACEHOLDER_RE = /\[(EMAIL|PHONE|CARD|IBAN|NATIONAL_ID|IP)_(\d+)\]/g;
