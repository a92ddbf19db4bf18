/** Detectors are finders: from text (with what stood before it), the spans they claim. */

/** `context`: text that stood before `work` (e.g. the JSON key of a string value), for keyword checks. */
export type Finder = (work: string, context: string) => [start: number, end: number][];

/** Collects the matches of `re` (global) that `accept` agrees with. */
export function regexFinder(re: RegExp, accept: (m: RegExpExecArray, work: string, context: string) => boolean = () => true): Finder {
  return (work, context) => {
    const found: [number, number][] = [];
    for (const m of work.matchAll(re)) {
      if (accept(m, work, context)) found.push([m.index, m.index + m[0].length]);
    }
    return found;
  };
}

/** A letter, digit or underscore: what glues a match to a word. */
export const isAlnum = (ch: string | undefined): boolean => ch !== undefined && /^[\p{L}\p{N}_]$/u.test(ch);
