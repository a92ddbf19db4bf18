import { findCards, findIbans } from './bank-numbers.js';
import { regexFinder, type Finder } from './finder.js';
import { findIPv6, IPV4_RE, isIPv4 } from './ip-address.js';
import type { PiiKind } from './vault.js';

/**
 * Detectors, in the order they claim text (a later detector never sees text an earlier one took,
 * so nothing is masked twice and e.g. card numbers never become phone numbers):
 *  1. literal placeholders (claimed by mask.ts): text that already looks like `[KIND_N]`. If the vault issued that very
 *     placeholder before, the literal is itself masked with a fresh placeholder (restored to the
 *     literal text); otherwise it is reserved so the vault never issues it. Either way
 *     `unmaskPii(maskPii(x)) === x` holds for every x.
 *  2. EMAIL: RFC 5322-ish dot-atom `local@domain.tld` (Unicode letters allowed, TLD of 2+ letters
 *     or `xn--`); no quoted local parts, no IP-literal domains.
 *  3. IBAN: two letters, two check digits and the BBAN, compact or in groups of four separated by
 *     single spaces; accepted only when ibantools finds it valid for its country (length, BBAN
 *     format, the ISO 13616 mod-97 check and national check digits).
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
 */

/** `kind: null` marks text claimed only to keep later detectors off it (dates). */
export interface Span {
  start: number;
  end: number;
  kind: PiiKind | null;
}

// --- e-mail -------------------------------------------------------------------------------------

/** Local part: atoms of letters, digits and !#$%&'*+/=?^_~- joined by dots, not starting with a quote. */
const EMAIL_RE =
  /(?<![\p{L}\p{N}!#$%&*+\/=?^_~.\-])[\p{L}\p{N}!#$%&*+\/=?^_~\-][\p{L}\p{N}!#$%&'*+\/=?^_~\-]*(?:\.[\p{L}\p{N}!#$%&'*+\/=?^_~\-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}\-]{0,61}[\p{L}\p{N}])?\.)+(?:\p{L}{2,63}|xn--[a-z0-9\-]{1,59})(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])/gu;

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
  // 13 digits: exact as a double.
  const key = 97 - (Number(m[1] + m[3] + m[4] + dept + m[6] + m[7]) % 97);
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

/**
 * The personal data in `text` outside the spans already `claimed`, which are blanked first;
 * returns every span, the claimed ones included, by start.
 */
export function detectPii(text: string, claimed: readonly Span[], context: string): Span[] {
  const spans: Span[] = [...claimed];
  let work = blank(text, spans.map((s) => [s.start, s.end]));
  for (const detector of DETECTORS) {
    const found = detector.find(work, context).filter(([start, end]) => end > start && !work.slice(start, end).includes('\0'));
    if (!found.length) continue;
    for (const [start, end] of found) spans.push({ start, end, kind: detector.kind });
    work = blank(work, found);
  }
  return spans.sort((a, b) => a.start - b.start);
}
