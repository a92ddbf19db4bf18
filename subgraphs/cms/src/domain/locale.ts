import { validationError, type FieldProblem } from '@svc/kit';

/**
 * A site's languages: BCP 47 tags in canonical case (`de-AT`), one of them the default, each
 * with at most one locale it falls back to. A locale's chain follows those fallbacks and ends
 * with the default (`de-AT → de → en`).
 */
export interface SiteLocale {
  tag: string;
  fallback: string | null;
}

export interface SiteLocales {
  defaultLocale: string;
  locales: readonly SiteLocale[];
}

/** What a site has until its locales are set: English only. */
export const DEFAULT_SITE_LOCALES: SiteLocales = { defaultLocale: 'en', locales: [{ tag: 'en', fallback: null }] };

export const MAX_SITE_LOCALES = 50;
/** RFC 5646 allows longer tags, but no language a site delivers in needs more. */
const MAX_TAG_LENGTH = 35;
const TAG_TEXT = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

/** The canonical form of a BCP 47 language tag (`de-at` → `de-AT`), or undefined when it is none. */
export function canonicalTag(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > MAX_TAG_LENGTH || !TAG_TEXT.test(tag)) return undefined;
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** A locale tag from a caller, canonical; 422 naming `pointer` when it is no language tag. */
export function checkTag(tag: string, pointer: string): string {
  const canonical = canonicalTag(tag);
  if (!canonical) throw validationError([{ pointer, detail: `must be a BCP 47 language tag such as "en" or "de-AT"; got ${JSON.stringify(tag.slice(0, 60))}` }]);
  return canonical;
}

/** Checks a site's locales as an author sends them and returns them canonical; 422 naming every problem. */
export function checkSiteLocales(input: { defaultLocale: string; locales: readonly { tag: string; fallback?: string | null }[] }): SiteLocales {
  const problems: FieldProblem[] = [];
  if (input.locales.length === 0 || input.locales.length > MAX_SITE_LOCALES) {
    problems.push({ pointer: '/locales', detail: `a site has 1 to ${MAX_SITE_LOCALES} locales; got ${input.locales.length}` });
  }
  const canonical = (tag: string, pointer: string) => {
    const found = canonicalTag(tag);
    if (!found) problems.push({ pointer, detail: `must be a BCP 47 language tag such as "en" or "de-AT"; got ${JSON.stringify(tag.slice(0, 60))}` });
    return found;
  };
  const locales: SiteLocale[] = [];
  /** The input position of each locale kept, for pointers. */
  const at: number[] = [];
  const seen = new Set<string>();
  input.locales.slice(0, MAX_SITE_LOCALES).forEach((locale, i) => {
    const tag = canonical(locale.tag, `/locales/${i}/tag`);
    const fallback = locale.fallback == null ? null : canonical(locale.fallback, `/locales/${i}/fallback`);
    if (!tag) return;
    if (seen.has(tag)) problems.push({ pointer: `/locales/${i}/tag`, detail: `${tag} is listed twice` });
    if (fallback === tag) problems.push({ pointer: `/locales/${i}/fallback`, detail: `${tag} cannot fall back to itself` });
    seen.add(tag);
    locales.push({ tag, fallback: fallback && fallback !== tag ? fallback : null });
    at.push(i);
  });
  const defaultLocale = canonical(input.defaultLocale, '/defaultLocale');
  if (defaultLocale && !seen.has(defaultLocale)) problems.push({ pointer: '/defaultLocale', detail: `${defaultLocale} must be one of the site's locales` });
  locales.forEach((locale, i) => {
    if (locale.fallback && !seen.has(locale.fallback)) problems.push({ pointer: `/locales/${at[i]}/fallback`, detail: `${locale.fallback} is not one of the site's locales` });
  });
  // A chain that comes back to a locale it passed would never end: name the loop.
  const byTag = new Map(locales.map((l) => [l.tag, l.fallback]));
  const reported = new Set<string>();
  locales.forEach((locale, i) => {
    const path = [locale.tag];
    let next = locale.fallback;
    while (next && byTag.has(next)) {
      if (path.includes(next)) {
        const loop = [...path.slice(path.indexOf(next)), next];
        const key = [...new Set(loop)].sort().join(' ');
        if (!reported.has(key)) problems.push({ pointer: `/locales/${at[i]}/fallback`, detail: `the fallbacks loop: ${loop.join(' → ')}` });
        reported.add(key);
        break;
      }
      path.push(next);
      next = byTag.get(next) ?? null;
    }
  });
  if (problems.length) throw validationError(problems, 'The site locales are not valid');
  return { defaultLocale: defaultLocale!, locales };
}

/**
 * The locales a request for `tag` reads, best first: the tag, the fallbacks it names in turn,
 * then the site default. Safe on a stored loop (it stops at the first locale seen again).
 */
export function fallbackChain(site: SiteLocales, tag: string): string[] {
  const byTag = new Map(site.locales.map((l) => [l.tag, l.fallback]));
  const chain: string[] = [];
  let next: string | null | undefined = tag;
  while (next && !chain.includes(next)) {
    chain.push(next);
    next = byTag.get(next);
  }
  if (!chain.includes(site.defaultLocale)) chain.push(site.defaultLocale);
  return chain;
}

/** A language range of Accept-Language with its weight. */
export interface LanguageRange {
  range: string;
  q: number;
}

/** Accept-Language longer than this is read only this far; ranges past the 32nd are ignored. */
const MAX_HEADER = 4096;
const MAX_RANGES = 32;
const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The ranges of an Accept-Language header (RFC 9110 12.5.4), highest weight first (the header's
 * order among equals). Malformed ranges and weights are skipped rather than refused: a browser's
 * odd header must never cost the reader the page. q=0 means "not acceptable" and is dropped.
 */
export function parseAcceptLanguage(header: string | undefined): LanguageRange[] {
  if (!header) return [];
  const ranges: LanguageRange[] = [];
  for (const part of header.slice(0, MAX_HEADER).split(',')) {
    if (ranges.length >= MAX_RANGES) break;
    const [rawRange, ...params] = part.split(';').map((p) => p.trim());
    if (!rawRange || !RANGE.test(rawRange)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const weight = WEIGHT.exec(param);
      if (weight) q = Number(weight[1]);
      else if (/^q\s*=/i.test(param)) valid = false;
    }
    if (valid && q > 0) ranges.push({ range: rawRange, q });
  }
  return ranges.map((r, i) => ({ r, i })).sort((a, b) => b.r.q - a.r.q || a.i - b.i).map(({ r }) => r);
}

/**
 * RFC 4647 lookup (3.4) of `ranges` among the site's locales: for each range in turn, the
 * longest site locale it truncates to (`de-AT-1996` → `de-AT` → `de`, dropping a singleton left
 * at the end); the wildcard matches nothing here. Case does not matter. Undefined when no range
 * finds one.
 */
export function lookupLocale(ranges: readonly string[], site: SiteLocales): string | undefined {
  const byLower = new Map(site.locales.map((l) => [l.tag.toLowerCase(), l.tag]));
  for (const range of ranges) {
    if (range === '*') continue;
    const subtags = range.toLowerCase().split('-');
    while (subtags.length) {
      const found = byLower.get(subtags.join('-'));
      if (found) return found;
      subtags.pop();
      if (subtags.length && subtags.at(-1)!.length === 1) subtags.pop();
    }
  }
  return undefined;
}

/**
 * The locale a delivery request asks for: `?locale=` when given (422 when it is no language
 * tag), else the Accept-Language negotiation; the site default when neither finds a locale of
 * the site.
 */
export function requestedLocale(site: SiteLocales, request: { locale?: string | null; acceptLanguage?: string | null }): string {
  if (request.locale != null) return lookupLocale([checkTag(request.locale, '/locale')], site) ?? site.defaultLocale;
  return lookupLocale(parseAcceptLanguage(request.acceptLanguage ?? undefined).map((r) => r.range), site) ?? site.defaultLocale;
}
