/**
 * Personal-data masking for the gateway's `piiStrict` mode.
 *
 * Before a request leaves the gateway, every detected personal value in the message texts is
 * replaced by a placeholder `[KIND_N]` (e.g. `[EMAIL_1]`, `[CARD_2]`), and the pair is kept in a
 * per-request {@link PiiVault}. The provider's answer is unmasked with the same vault, either at
 * once ({@link unmaskPii}) or delta by delta ({@link createStreamUnmasker}). Everything here is
 * pure (no I/O, no globals besides the vault registry) and fails closed: whatever cannot be
 * processed throws {@link PiiMaskingError} instead of passing through unmasked.
 *
 * Detectors, in the order they claim text (a later detector never sees text an earlier one took,
 * so nothing is masked twice and e.g. card numbers never become phone numbers):
 *  1. literal placeholders: text that already looks like `[KIND_N]`. If the vault issued that very
 *     placeholder before, the literal is itself masked with a fresh placeholder (restored to the
 *     literal text); otherwise it is reserved so the vault never issues it. Either way
 *     `unmaskPii(maskPii(x)) === x` holds for every x.
 *  2. EMAIL: RFC 5322-ish dot-atom `local@domain.tld` (Unicode letters allowed, TLD of 2+ letters
 *     or `xn--`); no quoted local parts, no IP-literal domains.
 *  3. IBAN: two letters, two check digits and the BBAN, compact or in groups of four separated by
 *     single spaces; accepted only when the ISO 13616 mod-97 check passes and, for the ~80 countries
 *     in {@link IBAN_LENGTHS}, the length is exact (other upper-case country codes: 15-34 chars).
 *  4. CARD: 13-19 digits, compact or grouped with one consistent separator (space or dash) as
 *     4-4-4-4(-3), 4-4-4-1..4, 4-6-5 or 4-6-4; accepted only when the Luhn check passes.
 *  5. IP: IPv6 (full, compressed, with embedded IPv4; must contain at least one decimal digit, so
 *     `::`, `std::vector`-like text and times like 12:30:45 are not addresses) and IPv4 dotted
 *     quads with octets 0-255 that are not part of a longer dotted number (`1.2.3.4.5`, `v1.2.3.4`).
 *  6. NATIONAL_ID: US SSN `AAA-GG-SSSS` (or space separated; area not 000/666/9xx, group not 00,
 *     serial not 0000), UK National Insurance number (`AB 12 34 56 C`, prefix letter rules and the
 *     BG/GB/NK/KN/TN/NT/ZZ exclusions, suffix A-D), Korean resident registration number
 *     `YYMMDD-SNNNNNN` (valid month/day, S 1-8; no check digit: numbers issued since 2020 have
 *     none), French NIR (15 chars, Corsica 2A/2B, key = 97 - n mod 97 checked).
 *  7. (not masked) dates and ISO timestamps (2026-11-21, 2026-11-21T10:30:45Z, 21.11.2026,
 *     11/21/2026): claimed only so that the phone detector cannot take them or glue them to a number.
 *  8. PHONE: `+CC` international forms, and national forms of 7-15 digits with spaces, dashes,
 *     dots and parentheses (`(555) 123-4567`, `030 1234567`, `01.23.45.67.89`). Rejected: fewer
 *     than 7 or more than 15 digits (years, "Order 12345", card-length numbers), dates, numbers
 *     grouped like thousands (`12 345 678`, `1.234.567`), dotted numbers with one-digit parts or
 *     four short parts (versions like 120.0.6099.109, non-IPs like 999.100.100.100), card-like
 *     4-4-4-x groupings, SSN-shaped 3-2-4 dash groups (invalid SSNs), year ranges (1990-2020),
 *     anything glued to letters, `/`, `:` or a decimal point, and numbers right after words like
 *     "order", "invoice", "ticket", "ref", "version" or "#". A digit run without separators
 *     counts only when it starts with a trunk prefix (0 or 00) and has 9+ digits, or when a phone
 *     word ("phone", "tel", "call", "mobile", "fax", a JSON key like "phone", ...) shortly precedes it.
 *
 * Known limitations:
 *  - Detection is pattern based: names, postal addresses, free-text identifiers, German tax ids,
 *    SSNs without separators and national ids of other countries are not detected.
 *  - A bare digit run such as `5551234567` with no phone word before it is not masked (it cannot
 *    be told from order numbers, amounts or epoch timestamps); formatted numbers are.
 *  - Four-part version numbers (1.2.3.4) are indistinguishable from IPv4 and are masked; ISBN-like
 *    dash-grouped numbers without a keyword in front may be masked as phones; numbers separated
 *    only by spaces next to a phone number may be masked together with it.
 *  - The same value written differently (`4111111111111111` / `4111 1111 1111 1111`) gets two
 *    placeholders: values are keyed by their exact text so they can be restored verbatim.
 *  - Only placeholders the model reproduces exactly are restored; `[Email_1]` or `[EMAIL 1]` stay.
 *  - Media parts (`image_url`, `input_audio`) pass through uninspected; other non-text content
 *    parts are refused. Tool call arguments are masked inside their JSON strings (and numbers);
 *    arguments that are not valid JSON are masked as plain text. Only `content` and `tool_calls`
 *    of a message are masked (not e.g. `name`).
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

// ---------------------------------------------------------------------------------------------
// Vault

interface VaultState {
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

function stateOf(vault: PiiVault): VaultState {
  const state = vaultStates.get(vault);
  if (!state) throw new PiiMaskingError('not a vault made by createPiiVault()');
  return state;
}

function placeholderFor(state: VaultState, kind: PiiKind, original: string): string {
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
const PLACEHOLDER_RE = /\[(EMAIL|PHONE|CARD|IBAN|NATIONAL_ID|IP)_(\d+)\]/g;

// ---------------------------------------------------------------------------------------------
// Detection

/** `kind: null` marks text claimed only to keep later detectors off it (dates). */
interface Span {
  start: number;
  end: number;
  kind: PiiKind | null;
}

/** `context`: text that stood before `work` (e.g. the JSON key of a string value), for keyword checks. */
type Finder = (work: string, context: string) => [start: number, end: number][];

/** Collects the matches of `re` (global) that `accept` agrees with. */
function regexFinder(re: RegExp, accept: (m: RegExpExecArray, work: string, context: string) => boolean = () => true): Finder {
  return (work, context) => {
    const found: [number, number][] = [];
    for (const m of work.matchAll(re)) {
      if (accept(m, work, context)) found.push([m.index, m.index + m[0].length]);
    }
    return found;
  };
}

const isAlnum = (ch: string | undefined): boolean => ch !== undefined && /^[\p{L}\p{N}_]$/u.test(ch);

// --- e-mail -------------------------------------------------------------------------------------

/** Local part: atoms of letters, digits and !#$%&'*+/=?^_~- joined by dots, not starting with a quote. */
const EMAIL_RE =
  /(?<![\p{L}\p{N}!#$%&*+\/=?^_~.\-])[\p{L}\p{N}!#$%&*+\/=?^_~\-][\p{L}\p{N}!#$%&'*+\/=?^_~\-]*(?:\.[\p{L}\p{N}!#$%&'*+\/=?^_~\-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}\-]{0,61}[\p{L}\p{N}])?\.)+(?:\p{L}{2,63}|xn--[a-z0-9\-]{1,59})(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])/gu;

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
function mod97(s: string): number {
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

function findIbans(work: string): [number, number][] {
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

function findCards(work: string): [number, number][] {
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

// --- IP addresses -------------------------------------------------------------------------------

const IPV4_RE = /(?<![\p{L}\p{N}_.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\p{L}\p{N}_]|\.\d)/gu;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

function isIPv6(s: string): boolean {
  if (s.length < 2 || s.length > 45) return false;
  let head = s;
  let extra = 0;
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return false;
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIPv4(tail)) return false;
    extra = 2;
    head = s.slice(0, lastColon + 1);
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const dbl = head.indexOf('::');
  if (dbl !== head.lastIndexOf('::')) return false;
  if (dbl < 0) {
    const groups = head.split(':');
    return groups.length + extra === 8 && groups.every((g) => HEX_GROUP.test(g));
  }
  const left = head.slice(0, dbl);
  const right = head.slice(dbl + 2);
  const groups = [...(left ? left.split(':') : []), ...(right ? right.split(':') : [])];
  return groups.every((g) => HEX_GROUP.test(g)) && groups.length + extra <= 7;
}

const IPV6_CANDIDATE_RE = /(?<![\p{L}\p{N}_:.])[0-9A-Fa-f:][0-9A-Fa-f:.]*/gu;

function findIPv6(work: string): [number, number][] {
  const found: [number, number][] = [];
  for (const m of work.matchAll(IPV6_CANDIDATE_RE)) {
    const rawEnd = m.index + m[0].length;
    if (isAlnum(work[rawEnd])) continue; // e.g. "fe80::1g": part of a word
    const text = m[0].replace(/\.+$/, ''); // sentence punctuation
    if ((text.match(/:/g) ?? []).length < 2 || !/\d/.test(text) || !isIPv6(text)) continue;
    found.push([m.index, m.index + text.length]);
  }
  return found;
}

// --- national ids -------------------------------------------------------------------------------

/** US Social Security number. */
const SSN_RE = /(?<![\p{L}\p{N}_\-])(\d{3})([\- ])(\d{2})\2(\d{4})(?![\p{L}\p{N}_]|[\-.]\d)/gu;
const ssnOk = (m: RegExpExecArray): boolean => m[1] !== '000' && m[1] !== '666' && m[1][0] !== '9' && m[3] !== '00' && m[4] !== '0000';

/** UK National Insurance number (first letter not D F I Q U V, second not D F I O Q U V). */
const NINO_RE = /(?<![\p{L}\p{N}_])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\p{L}\p{N}_])/gu;
const NINO_BAD_PREFIXES = new Set(['BG', 'GB', 'NK', 'KN', 'TN', 'NT', 'ZZ']);

/** Korean resident registration number. */
const RRN_RE = /(?<![\p{L}\p{N}_\-])\d{2}(\d{2})(\d{2})-[1-8]\d{6}(?![\p{L}\p{N}_]|-\d)/gu;
const monthDayOk = (month: number, day: number): boolean => month >= 1 && month <= 12 && day >= 1 && day <= 31;

/** French NIR (numéro de sécurité sociale), compact or with single spaces. */
const NIR_RE = /(?<![\p{L}\p{N}_])([12])( ?)(\d{2})\2(\d{2})\2(\d{2}|2[AB])\2(\d{3})\2(\d{3})\2(\d{2})(?![\p{L}\p{N}_])/gu;
function nirOk(m: RegExpExecArray): boolean {
  const dept = m[5] === '2A' ? '19' : m[5] === '2B' ? '18' : m[5];
  const key = 97 - mod97(m[1] + m[3] + m[4] + dept + m[6] + m[7]);
  return key === Number(m[8]);
}

// --- dates (claimed, not masked) ----------------------------------------------------------------

const ISO_DATE_RE =
  /(?<![\p{L}\p{N}_.\-\/])\d{4}-(\d{2})-(\d{2})(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:Z|[+\-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?(?!\p{N})/gu;
const DMY_RE = /(?<![\p{L}\p{N}_.\-\/])(\d{1,2})([.\-\/])(\d{1,2})\2(?:\d{4}|\d{2})(?!\p{N}|[.\-\/]\d)/gu;
const YMD_RE = /(?<![\p{L}\p{N}_.\-\/])\d{4}([.\/])(\d{1,2})\1(\d{1,2})(?!\p{N}|[.\-\/]\d)/gu;

function dayMonthOk(a: number, b: number): boolean {
  return a >= 1 && b >= 1 && a <= 31 && b <= 31 && (a <= 12 || b <= 12);
}

// --- phone numbers ------------------------------------------------------------------------------

const PHONE_RE =
  /(?<![\p{L}\p{N}_+@.,\-\/:])(?:\+|\(\d{1,5}\)[ .\-]?)?\d+(?:[ .\-]?\(\d{1,5}\)[ .\-]?\d+|[ .\-]\d+)*(?![\p{L}\p{N}_@]|[.,\-\/:]\d)/gu;
const PHONE_WORD_RE =
  /(?<!\p{L})(?:phone|telephone|tel|mobile|mob|cell|fax|call|sms|whatsapp|signal|telefon|telefonnummer|telefonnr|handy|mobil|téléphone|tél|portable|teléfono|telefono|cellulare|전화|휴대폰|핸드폰)(?!\p{L})[^\n]{0,25}$/iu;
const NOT_PHONE_RE =
  /(?:(?<!\p{L})(?:order|invoice|ticket|ref|reference|sku|isbn|issn|version|ver|build|serial|tracking|bestellung|bestellnr|rechnung|auftrag|commande|facture)[\s:.#\-]*(?:no\.?|nr\.?|number|num|id)?|#)[\s:.#\-]*$/iu;

function looksLikeDate(groups: string[]): boolean {
  if (groups.length !== 3) return false;
  const [a, b, c] = groups.map(Number);
  if (groups[0].length === 4 && groups[1].length <= 2 && groups[2].length <= 2) return monthDayOk(b, c);
  if (groups[0].length <= 2 && groups[1].length <= 2 && (groups[2].length === 4 || groups[2].length === 2)) return dayMonthOk(a, b);
  return false;
}

function phoneOk(m: RegExpExecArray, work: string, context: string): boolean {
  const text = m[0];
  const digits = text.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return false;
  if (text.startsWith('+')) return true;
  const before = (m.index < 40 ? context.slice(-40) : '') + work.slice(Math.max(0, m.index - 40), m.index);
  if (NOT_PHONE_RE.test(before)) return false;
  const groups: string[] = text.match(/\d+/g) ?? [];
  if (groups.length === 1) return PHONE_WORD_RE.test(before) || (/^00?[1-9]/.test(digits) && digits.length >= 9);
  if (text.includes('(')) return true;
  const seps = new Set(text.replace(/\d/g, ''));
  if (looksLikeDate(groups)) return false;
  if (seps.has('.') && (groups.some((g) => g.length === 1) || (groups.length === 4 && groups.every((g) => g.length <= 3)))) return false;
  const thousands = groups[0].length <= 2 && groups[0][0] !== '0' && groups.slice(1).every((g) => g.length === 3);
  if (thousands && !seps.has('-')) return false;
  if (groups.length >= 4 && groups.slice(0, 3).every((g) => g.length === 4) && digits.length >= 13) return false;
  if (groups.length === 2 && seps.has('-') && groups.every((g) => g.length === 4 && g >= '1000' && g <= '2999')) return false;
  if (groups.map((g) => g.length).join() === '3,2,4' && seps.size === 1 && seps.has('-')) return false; // SSN-shaped (invalid ones)
  return true;
}

// --- pipeline -----------------------------------------------------------------------------------

interface Detector {
  kind: PiiKind | null;
  find: Finder;
}

const DETECTORS: readonly Detector[] = [
  { kind: 'EMAIL', find: regexFinder(EMAIL_RE) },
  { kind: 'IBAN', find: findIbans },
  { kind: 'CARD', find: findCards },
  { kind: 'IP', find: findIPv6 },
  { kind: 'IP', find: regexFinder(IPV4_RE, (m) => isIPv4(m[0])) },
  { kind: 'NATIONAL_ID', find: regexFinder(SSN_RE, ssnOk) },
  { kind: 'NATIONAL_ID', find: regexFinder(NINO_RE, (m) => !NINO_BAD_PREFIXES.has(m[1])) },
  { kind: 'NATIONAL_ID', find: regexFinder(RRN_RE, (m) => monthDayOk(Number(m[1]), Number(m[2]))) },
  { kind: 'NATIONAL_ID', find: regexFinder(NIR_RE, nirOk) },
  { kind: null, find: regexFinder(ISO_DATE_RE, (m) => monthDayOk(Number(m[1]), Number(m[2]))) },
  { kind: null, find: regexFinder(DMY_RE, (m) => dayMonthOk(Number(m[1]), Number(m[3]))) },
  { kind: null, find: regexFinder(YMD_RE, (m) => monthDayOk(Number(m[2]), Number(m[3]))) },
  { kind: 'PHONE', find: regexFinder(PHONE_RE, phoneOk) },
];

/**
 * Claimed text is blanked with NUL characters (same length, so indices stay valid): no detector
 * pattern matches NUL, and NUL counts as a boundary for the ones that follow.
 */
function blank(work: string, spans: readonly [number, number][]): string {
  let out = '';
  let pos = 0;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    out += work.slice(pos, start) + '\0'.repeat(end - start);
    pos = end;
  }
  return out + work.slice(pos);
}

function detect(text: string, state: VaultState, context: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(PLACEHOLDER_RE)) {
    if (state.byPlaceholder.has(m[0])) spans.push({ start: m.index, end: m.index + m[0].length, kind: m[1] as PiiKind });
    else state.reserved.add(m[0]);
  }
  let work = blank(text, spans.map((s) => [s.start, s.end]));
  for (const detector of DETECTORS) {
    const found = detector.find(work, context).filter(([start, end]) => end > start && !work.slice(start, end).includes('\0'));
    if (!found.length) continue;
    for (const [start, end] of found) spans.push({ start, end, kind: detector.kind });
    work = blank(work, found);
  }
  return spans.sort((a, b) => a.start - b.start);
}

// ---------------------------------------------------------------------------------------------
// Public API

/** Replaces every detected value with a placeholder like `[EMAIL_1]`, `[CARD_2]` (kind + per-kind counter) and records it in the vault. */
export function maskPii(text: string, vault: PiiVault): string {
  return maskWithContext(text, vault, '');
}

function maskWithContext(text: string, vault: PiiVault, context: string): string {
  const state = stateOf(vault);
  if (typeof text !== 'string') throw new PiiMaskingError(`cannot mask a ${typeof text}`);
  try {
    let out = '';
    let pos = 0;
    for (const span of detect(text, state, context)) {
      if (span.start < pos) throw new PiiMaskingError('overlapping detections');
      out += text.slice(pos, span.start);
      const original = text.slice(span.start, span.end);
      out += span.kind === null ? original : placeholderFor(state, span.kind, original);
      pos = span.end;
    }
    return out + text.slice(pos);
  } catch (error) {
    if (error instanceof PiiMaskingError) throw error;
    throw new PiiMaskingError(`masking failed: ${(error as Error).message}`, { cause: error });
  }
}

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

// --- messages -----------------------------------------------------------------------------------

/** Content part types that carry no text to mask (binary media or a URL to it); passed through. */
const MEDIA_PART_TYPES = new Set(['image_url', 'input_audio']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function maskContent(content: unknown, vault: PiiVault, where: string): unknown {
  if (content === null || content === undefined) return content;
  if (typeof content === 'string') return maskPii(content, vault);
  if (!Array.isArray(content)) throw new PiiMaskingError(`${where}.content has an unsupported shape (${typeof content})`);
  return content.map((part: unknown, i) => {
    const at = `${where}.content[${i}]`;
    if (!isRecord(part)) throw new PiiMaskingError(`${at} is not a content part`);
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw new PiiMaskingError(`${at}.text is not a string`);
      return { ...part, text: maskPii(part.text, vault) };
    }
    if (part.type === 'refusal') {
      if (typeof part.refusal !== 'string') throw new PiiMaskingError(`${at}.refusal is not a string`);
      return { ...part, refusal: maskPii(part.refusal, vault) };
    }
    if (typeof part.type === 'string' && MEDIA_PART_TYPES.has(part.type)) return part;
    throw new PiiMaskingError(`${at} has an unsupported type (${String(part.type)})`);
  });
}

/** Masks the string values (and numbers) inside JSON text; plain-text masking if it is not JSON. */
function maskJsonText(raw: string, vault: PiiVault): string {
  try {
    JSON.parse(raw);
  } catch {
    return maskPii(raw, vault);
  }
  // Valid JSON: visit string and number tokens, so that escapes (`\n`, `\u0040`) are decoded
  // before detection and placeholders never land inside an escape sequence. The JSON before a
  // token is its context, so `{"phone": "5551234567"}` is recognised by its key. A masked number
  // becomes a JSON string.
  return raw.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?/g, (token: string, offset: number) => {
    const context = raw.slice(Math.max(0, offset - 40), offset);
    const value = token.startsWith('"') ? (JSON.parse(token) as string) : token;
    const masked = maskWithContext(value, vault, context);
    return masked === value ? token : JSON.stringify(masked);
  });
}

/**
 * Masks every text part of OpenAI chat messages (string content and `{type:'text', text}` parts;
 * also tool call arguments), returning new message objects. Throws PiiMaskingError when it cannot
 * process a message (e.g. content of an unknown shape that may contain text), so callers fail closed.
 */
export function maskMessages<M extends { content: unknown; tool_calls?: { function: { arguments: string } }[] }>(messages: M[], vault: PiiVault): M[] {
  stateOf(vault);
  if (!Array.isArray(messages)) throw new PiiMaskingError('messages is not an array');
  return messages.map((message: unknown, i) => {
    const where = `messages[${i}]`;
    if (!isRecord(message)) throw new PiiMaskingError(`${where} is not an object`);
    const out: Record<string, unknown> = { ...message };
    if ('content' in message) out.content = maskContent(message.content, vault, where);
    if (message.tool_calls !== undefined && message.tool_calls !== null) {
      if (!Array.isArray(message.tool_calls)) throw new PiiMaskingError(`${where}.tool_calls is not an array`);
      out.tool_calls = message.tool_calls.map((call: unknown, j) => {
        const at = `${where}.tool_calls[${j}]`;
        if (!isRecord(call) || !isRecord(call.function)) throw new PiiMaskingError(`${at} has no function`);
        if (typeof call.function.arguments !== 'string') throw new PiiMaskingError(`${at}.function.arguments is not a string`);
        return { ...call, function: { ...call.function, arguments: maskJsonText(call.function.arguments, vault) } };
      });
    }
    return out as M;
  });
}
