import { countrySpecs, isValidIBAN } from 'ibantools';
import { isAlnum } from './finder.js';

/** Bank account and card numbers, each accepted only when its check digits are right. */

// --- IBAN ---------------------------------------------------------------------------------------

/**
 * Whether a compact IBAN is one: the country's length and BBAN format, the mod-97 check digits
 * and, where a country has them, the national check digits (ibantools, after the SWIFT registry).
 */
const isValidIban = (compact: string): boolean => isValidIBAN(compact.toUpperCase());

const IBAN_START_RE = /(?<![\p{L}\p{N}_])([A-Za-z]{2})(\d{2})/gu;
const ALNUM_ASCII = /[A-Za-z0-9]/;

export function findIbans(work: string): [number, number][] {
  const found: [number, number][] = [];
  const re = new RegExp(IBAN_START_RE);
  let m: RegExpExecArray | null;
  while ((m = re.exec(work)) !== null) {
    const start = m.index;
    const country = m[1].toUpperCase();
    // Letters that name no IBAN country: not an IBAN, however it goes on.
    if (!countrySpecs[country]?.chars) continue;
    /** Possible ends: [end index in work, compact text up to there]. */
    const ends: [number, string][] = [];
    let compact = country + m[2];
    let pos = start + 4;
    const alnumAt = (i: number): boolean => i < work.length && ALNUM_ASCII.test(work[i]);
    if (work[pos] === ' ' && alnumAt(pos + 1)) {
      // Printed form: groups of four separated by single spaces; the last group may be shorter.
      while (compact.length < 34 && work[pos] === ' ' && alnumAt(pos + 1)) {
        let groupEnd = pos + 1;
        while (groupEnd < pos + 5 && alnumAt(groupEnd)) groupEnd++;
        if (alnumAt(groupEnd)) break; // a run longer than four: not a group
        compact += work.slice(pos + 1, groupEnd);
        ends.push([groupEnd, compact]);
        if (groupEnd - pos - 1 < 4) break;
        pos = groupEnd;
      }
    } else {
      let end = pos;
      while (alnumAt(end)) end++;
      if (!isAlnum(work[end])) ends.push([end, compact + work.slice(pos, end)]);
    }
    for (let i = ends.length - 1; i >= 0; i--) {
      const [end, text] = ends[i];
      if (isValidIban(text)) {
        found.push([start, end]);
        re.lastIndex = end;
        break;
      }
    }
  }
  return found;
}

// --- card numbers -------------------------------------------------------------------------------

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

function cardGroupingOk(lengths: number[]): boolean {
  if (lengths.length === 1) return true;
  const key = lengths.join('-');
  if (key === '4-6-5' || key === '4-6-4') return true;
  const last = lengths[lengths.length - 1];
  return lengths.slice(0, -1).every((l) => l === 4) && last >= 1 && last <= 4;
}

/** Digit groups separated by single spaces or dashes. */
const DIGIT_RUN_RE = /(?<![\p{L}\p{N}_.,+\-\/])\d+(?:[ \-]\d+)*/gu;

export function findCards(work: string): [number, number][] {
  const found: [number, number][] = [];
  for (const run of work.matchAll(DIGIT_RUN_RE)) {
    const groups = [...run[0].matchAll(/\d+/g)].map((g) => ({ start: run.index + g.index, text: g[0] }));
    const runEnd = run.index + run[0].length;
    // The run's own end must not be glued to letters or continue as a decimal number.
    const runEndOk = !isAlnum(work[runEnd]) && !(/[.,]/.test(work[runEnd] ?? '') && /\d/.test(work[runEnd + 1] ?? ''));
    let i = 0;
    while (i < groups.length) {
      // Candidates start at group i and end at group j, longest first (13-19 digits).
      const ends: { j: number; digits: string }[] = [];
      let digits = '';
      for (let j = i; j < groups.length && digits.length + groups[j].text.length <= 19; j++) {
        digits += groups[j].text;
        if (digits.length >= 13) ends.push({ j, digits });
        if (groups[i].text.length !== 4) break; // grouped card numbers start with four digits
      }
      let taken = -1;
      for (let c = ends.length - 1; c >= 0 && taken < 0; c--) {
        const { j, digits: d } = ends[c];
        if (j === groups.length - 1 && !runEndOk) continue;
        const slice = groups.slice(i, j + 1);
        const seps = new Set(slice.slice(1).map((g) => work[g.start - 1]));
        if (seps.size > 1 || !cardGroupingOk(slice.map((g) => g.text.length)) || !luhnValid(d)) continue;
        taken = j;
      }
      if (taken >= 0) {
        const last = groups[taken];
        found.push([groups[i].start, last.start + last.text.length]);
        i = taken + 1;
      } else {
        i++;
      }
    }
  }
  return found;
}
