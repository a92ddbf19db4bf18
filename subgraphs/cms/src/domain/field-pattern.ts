import { RE2JS } from 're2js';

/**
 * Form field patterns (and the built-in e-mail/phone/URL checks) run on RE2 (re2js, pure
 * JavaScript): matching takes time linear in the value, whatever the pattern, so a pattern
 * such as `(a+)+` cannot stall the event loop the way a backtracking `RegExp` does.
 *
 * Decisions:
 * - RE2 syntax: no lookaround and no backreferences (they are what makes matching
 *   exponential); such patterns are refused when the form is defined, with RE2's message.
 * - At most {@link MAX_PATTERN_LENGTH} characters, and RE2's own limit of 1000 for a repeat
 *   count (nested repeats included), so compiling stays cheap too.
 * - The pattern must match the whole (trimmed) value: every alternative is anchored.
 */
export const MAX_PATTERN_LENGTH = 500;

export type FieldPattern = RE2JS;

/** Compiles an editor's pattern, or says why it cannot be used. */
export function compileFieldPattern(pattern: string): FieldPattern | { problem: string } {
  if (pattern.length > MAX_PATTERN_LENGTH) return { problem: `must be at most ${MAX_PATTERN_LENGTH} characters; got ${pattern.length}` };
  try {
    return RE2JS.compile(`^(?:${pattern})$`);
  } catch (error) {
    return { problem: `is not a valid regular expression (RE2 syntax: no lookaround or backreferences): ${JSON.stringify(pattern)} (${(error as Error).message})` };
  }
}

/** A built-in pattern, compiled once (RE2, anchored by the caller's `^...$`). */
export function linearPattern(source: string): FieldPattern {
  return RE2JS.compile(source);
}

/** Whether the whole value matches. */
export function fullMatch(pattern: FieldPattern, value: string): boolean {
  return pattern.matcher(value).find();
}
