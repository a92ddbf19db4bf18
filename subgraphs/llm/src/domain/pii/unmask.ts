/**
 * Unmasking: the provider's answer gets the originals back for the placeholders the request's
 * vault issued, at once (`unmaskPii`) or, for streamed answers, delta by delta
 * (`createStreamUnmasker`).
 */
import { PiiMaskingError, PLACEHOLDER_RE, stateOf, type PiiVault } from './vault.js';

/** Replaces every placeholder known to the vault by its original; unknown bracketed text is left as is. */
export function unmaskPii(text: string, vault: PiiVault): string {
  const state = stateOf(vault);
  if (typeof text !== 'string') throw new PiiMaskingError(`cannot unmask a ${typeof text}`);
  if (state.byPlaceholder.size === 0) return text;
  // One pass, no rescanning of restored text: restored originals are never unmasked again.
  return text.replace(PLACEHOLDER_RE, (placeholder) => state.byPlaceholder.get(placeholder) ?? placeholder);
}

/**
 * For streamed answers: push text deltas, get back text safe to emit (placeholders restored);
 * holds back a tail that may be the start of a placeholder (e.g. "[EMA") until it can tell;
 * flush() returns the rest.
 *
 * Only the text from the last `[` can still become a placeholder (a placeholder contains no other
 * `[`), and it is held back only while it is a proper prefix of a placeholder the vault issued,
 * so the held-back tail is always shorter than the longest placeholder.
 */
export function createStreamUnmasker(vault: PiiVault): { push(delta: string): string; flush(): string } {
  const state = stateOf(vault);
  let pending = '';
  return {
    push(delta: string): string {
      if (typeof delta !== 'string') throw new PiiMaskingError(`cannot unmask a ${typeof delta}`);
      const buffer = pending + delta;
      const open = buffer.lastIndexOf('[');
      const cut = open >= 0 && state.prefixes.has(buffer.slice(open)) ? open : buffer.length;
      pending = buffer.slice(cut);
      return unmaskPii(buffer.slice(0, cut), vault);
    },
    flush(): string {
      // A proper prefix of a placeholder contains no complete placeholder: emit it as it is.
      const rest = pending;
      pending = '';
      return rest;
    },
  };
}
