import { isAlnum } from './finder.js';

/** Bank account and card numbers, each accepted only when its check digits are right. */

// --- IBAN ---------------------------------------------------------------------------------------

/** IBAN lengths per country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28,
  HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20,
  LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24, TR: 26, UA: 29, VA: 22,
  VG: 24, XK: 20,
};

/** ISO 7064 mod 97-10 over an upper-case alphanumeric string (letters count as 10..35). */
export function mod97(s: string): number {
  let r = 0;
  for (const ch of s) {
    const code = ch.charCodeAt(0);
    r = code >= 65 ? (r * 100 + (code - 55)) % 97 : (r * 10 + (code - 48)) % 97;
  }
  return r;
}

function isValidIban(compact: string): boolean {
  const iban = compact.toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected !== undefined && iban.length !== expected) return false;
  return mod97(iban.slice(4) + iban.slice(0, 4)) === 1;
}

const IBAN_START_RE = /(?<![\p{L}\p{N}_])([A-Za-z]{2})(\d{2})/gu;
const ALNUM_ASCII = /[A-Za-z0-9]/;

export function findIbans(work: string): [number, number][] {
  const found: [number, number][] = [];
  const re = new RegExp(IBAN_START_RE);
  let m: RegExpExecArray | null;
  while ((m = re.exec(work)) !== null) {
    const start = m.index;
    const country = m[1].toUpperCase();
    // Unknown countries only in upper case, to keep random words with digits out.
    if (IBAN_LENGTHS[country] === undefined && m[1] !== country) continue;
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
      if (text.length >= 15 && text.length <= 34 && isValidIban(text)) {
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
