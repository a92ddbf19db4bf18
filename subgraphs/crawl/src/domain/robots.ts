/**
 * robots.txt (RFC 9309) for the crawler: parsing, group selection, rule matching, crawl-delay.
 *
 * Decisions:
 * - The crawler identifies itself with {@link SVC_USER_AGENT}; groups are chosen by its product
 *   token {@link SVC_PRODUCT_TOKEN}. A `User-agent:` line matches when its leading token
 *   (letters, `_` and `-`, so `SvcPlatformCrawler/1.0` counts) equals ours, ignoring case.
 *   Every matching group is merged (RFC 9309 2.2.1); only when none matches are the `*` groups
 *   used (merged likewise); with neither, everything is allowed.
 * - Rules: `Allow`/`Disallow` patterns match the start of the path plus query; `*` matches any
 *   run of characters, a final `$` anchors the end (anywhere else it is literal). The longest
 *   matching pattern wins; on a tie `Allow` wins. Empty `Disallow:` matches nothing. Paths and
 *   patterns are compared percent-encoded as RFC 9309 2.2.2 says: non-ASCII as UTF-8 `%XX`,
 *   escapes of unreserved characters decoded, other escapes in upper case. Matching is
 *   linear-time in the pattern (no regular expressions), so hostile patterns cannot blow up.
 * - `/robots.txt` itself is always allowed.
 * - Rules before the first `User-agent:` line are ignored; `Sitemap:` and unknown lines do not
 *   end a group. `Crawl-delay` (not in RFC 9309, widely used) is read from the chosen groups in
 *   seconds (fractions allowed; malformed values ignored); when several are given the largest
 *   applies. It is returned uncapped: honouring it is the politeness we promise, and a job's
 *   own time budget bounds a site that asks for hours.
 * - Only the first {@link ROBOTS_MAX_BYTES} (500 KiB, the minimum RFC 9309 2.5 requires parsers to
 *   handle, and Google's limit) are parsed; a line cut by the limit is dropped. Fetchers should
 *   stop reading there too.
 * - How the fetch went decides before parsing ({@link robotsPolicyFromFetch}), following
 *   RFC 9309 2.3.1 and Google's documented behaviour:
 *   2xx: parse the body. 4xx other than 429 (404, 401, 403, ...): no robots.txt, allow all.
 *   3xx still unresolved (the fetcher follows up to five redirects): unavailable, allow all.
 *   429, 5xx, any other status and network failures (timeout, refused, DNS, TLS): disallow all,
 *   since the site may be unable to say what it forbids. The RFC lets a crawler treat a
 *   robots.txt that stays unreachable for ~30 days as missing; this module does not remember
 *   failures, so it never does.
 * - Whether robots.txt is consulted at all is a per-job setting; a job that opts out uses
 *   {@link allowAllPolicy}. A policy applies to the origin (scheme, host, port) it was fetched from.
 */

/** The product token groups are matched against. */
export const SVC_PRODUCT_TOKEN = 'SvcPlatformCrawler';
/** The User-Agent header of every crawler request. */
export const SVC_USER_AGENT = `${SVC_PRODUCT_TOKEN}/1.0 (+https://github.com/svc-platform)`;
/** How much of a robots.txt is parsed; fetchers should read no more. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

export interface RobotsRule {
  allow: boolean;
  /** Normalised pattern (see the module comment). */
  pattern: string;
}

export interface RobotsGroup {
  /** User-agent values as written. */
  userAgents: string[];
  rules: RobotsRule[];
  /** Crawl-delay in seconds, when the group gives a valid one. */
  crawlDelaySeconds?: number;
}

export interface ParsedRobots {
  groups: RobotsGroup[];
  sitemaps: string[];
}

export interface RobotsPolicy {
  /** `parsed` from a body, `missing` (allow all), `unreachable` (disallow all), `ignored` (the job opted out). */
  readonly source: 'parsed' | 'missing' | 'unreachable' | 'ignored';
  /** Whether the crawler may fetch the URL (absolute, or a path such as `/a?b`). Unparsable URLs are refused. */
  isAllowed(url: string): boolean;
  /** The crawl-delay that applies to the crawler, in milliseconds, if the file sets one. */
  crawlDelayMs(): number | undefined;
  /** Sitemap URLs listed in the file (they apply to every user agent). */
  readonly sitemaps: readonly string[];
}

/** The product token of a User-Agent string (`SvcPlatformCrawler/1.0 (...)` → `SvcPlatformCrawler`). */
export function productToken(userAgent: string): string {
  return /^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? '';
}

/** Cuts text to at most `maxBytes` of UTF-8, dropping a line the cut would split. */
export function truncateRobots(text: string, maxBytes = ROBOTS_MAX_BYTES): string {
  if (text.length * 3 <= maxBytes) return text;
  // A UTF-16 code unit is at least one UTF-8 byte, so the first maxBytes units hold the first maxBytes bytes.
  const bytes = new TextEncoder().encode(text.length > maxBytes ? text.slice(0, maxBytes + 1) : text);
  if (bytes.length <= maxBytes) return text;
  const kept = new TextDecoder().decode(bytes.subarray(0, maxBytes));
  const lastBreak = Math.max(kept.lastIndexOf('\n'), kept.lastIndexOf('\r'));
  return lastBreak === -1 ? '' : kept.slice(0, lastBreak + 1);
}

const HEX = /^[0-9A-Fa-f]{2}$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** ASCII characters a URL never carries unescaped in a path or query. */
const MUST_ESCAPE = /[\u0000-\u0020"<>`{}\u007f]/;

function escapeByte(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** Percent-encoding normalisation applied to both patterns and paths (RFC 9309 2.2.2). */
export function normalizeRobotsPath(text: string): string {
  let out = '';
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (ch === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (HEX.test(hex)) {
        const decoded = String.fromCharCode(parseInt(hex, 16));
        out += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
        i += 3;
      } else {
        out += '%25';
        i += 1;
      }
      continue;
    }
    const codePoint = text.codePointAt(i)!;
    const char = String.fromCodePoint(codePoint);
    if (codePoint > 0x7f) for (const byte of encoder.encode(char)) out += escapeByte(byte);
    else if (MUST_ESCAPE.test(char)) out += escapeByte(codePoint);
    else out += char;
    i += char.length;
  }
  return out;
}

/**
 * Whether `pattern` matches the start of `path` (`*` any run, final `$` the end). Tracks the set
 * of path positions the pattern prefix can reach, as Google's reference parser does: O(path × pattern).
 */
export function matchesPattern(path: string, pattern: string): boolean {
  let positions = [0];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '$' && i === pattern.length - 1) return positions[positions.length - 1] === path.length;
    if (ch === '*') {
      const from = positions[0]!;
      positions = Array.from({ length: path.length - from + 1 }, (_, k) => from + k);
      continue;
    }
    const next: number[] = [];
    for (const p of positions) if (p < path.length && path[p] === ch) next.push(p + 1);
    if (next.length === 0) return false;
    positions = next;
  }
  return true;
}

type Directive = 'user-agent' | 'allow' | 'disallow' | 'crawl-delay' | 'sitemap';

const DIRECTIVES: Record<string, Directive> = {
  'user-agent': 'user-agent',
  useragent: 'user-agent',
  'user agent': 'user-agent',
  allow: 'allow',
  disallow: 'disallow',
  'crawl-delay': 'crawl-delay',
  crawldelay: 'crawl-delay',
  sitemap: 'sitemap',
  'site-map': 'sitemap',
};

/** Parses robots.txt text into groups (see the module comment for the rules). */
export function parseRobots(text: string): ParsedRobots {
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let current: RobotsGroup | undefined;
  let collectingAgents = false;

  for (const rawLine of truncateRobots(text).replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = hash === -1 ? rawLine : rawLine.slice(0, hash);
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const directive = DIRECTIVES[line.slice(0, colon).trim().toLowerCase()];
    const value = line.slice(colon + 1).trim();
    switch (directive) {
      case 'user-agent':
        if (!value) break;
        if (!current || !collectingAgents) {
          current = { userAgents: [], rules: [] };
          groups.push(current);
          collectingAgents = true;
        }
        current.userAgents.push(value);
        break;
      case 'allow':
      case 'disallow':
        if (!current) break;
        collectingAgents = false;
        if (value) current.rules.push({ allow: directive === 'allow', pattern: normalizeRobotsPath(value).replace(/\*{2,}/g, '*') });
        break;
      case 'crawl-delay': {
        if (!current) break;
        collectingAgents = false;
        if (/^\d+(\.\d+)?$/.test(value)) {
          const seconds = Number(value);
          current.crawlDelaySeconds = Math.max(current.crawlDelaySeconds ?? 0, seconds);
        }
        break;
      }
      case 'sitemap':
        if (value) sitemaps.push(value);
        break;
      default:
        break; // unknown lines are ignored and do not end a group
    }
  }
  return { groups, sitemaps };
}

function isWildcardAgent(value: string): boolean {
  return value.startsWith('*');
}

/** The groups that apply to `userAgent`: every group naming its product token, else every `*` group. */
export function selectGroups(parsed: ParsedRobots, userAgent: string): RobotsGroup[] {
  const token = productToken(userAgent).toLowerCase();
  const named = token
    ? parsed.groups.filter((g) => g.userAgents.some((ua) => !isWildcardAgent(ua) && productToken(ua).toLowerCase() === token))
    : [];
  return named.length > 0 ? named : parsed.groups.filter((g) => g.userAgents.some(isWildcardAgent));
}

function pathOf(url: string): string | undefined {
  try {
    const parsed = new URL(url, 'http://robots.invalid/');
    return normalizeRobotsPath(parsed.pathname + parsed.search);
  } catch {
    return undefined;
  }
}

function fixedPolicy(source: RobotsPolicy['source'], allowed: boolean): RobotsPolicy {
  return {
    source,
    isAllowed: (url) => {
      const path = pathOf(url);
      return path !== undefined && (allowed || path === '/robots.txt');
    },
    crawlDelayMs: () => undefined,
    sitemaps: [],
  };
}

/** Everything allowed: for jobs that do not consult robots.txt. */
export function allowAllPolicy(): RobotsPolicy {
  return fixedPolicy('ignored', true);
}

/** Everything but /robots.txt refused: robots.txt could not be fetched. */
export function disallowAllPolicy(): RobotsPolicy {
  return fixedPolicy('unreachable', false);
}

/** A policy from a robots.txt body; `null` means there is none (allow all). */
export function createRobotsPolicy(text: string | null, userAgent: string = SVC_USER_AGENT): RobotsPolicy {
  if (text === null) return fixedPolicy('missing', true);
  const parsed = parseRobots(text);
  const groups = selectGroups(parsed, userAgent);
  const rules = groups.flatMap((g) => g.rules);
  const delays = groups.map((g) => g.crawlDelaySeconds).filter((d): d is number => d !== undefined);
  const delayMs = delays.length > 0 ? Math.round(Math.max(...delays) * 1000) : undefined;

  return {
    source: 'parsed',
    isAllowed(url) {
      const path = pathOf(url);
      if (path === undefined) return false;
      if (path === '/robots.txt') return true;
      let best: RobotsRule | undefined;
      for (const rule of rules) {
        if (best && (rule.pattern.length < best.pattern.length || (rule.pattern.length === best.pattern.length && !rule.allow))) continue;
        if (matchesPattern(path, rule.pattern)) best = rule;
      }
      return best?.allow ?? true;
    },
    crawlDelayMs: () => delayMs,
    sitemaps: parsed.sitemaps,
  };
}

/** How fetching /robots.txt went: a response (after redirects), or no response at all. */
export type RobotsFetchResult = { status: number; body: string } | { unreachable: true; error?: unknown };

/** The policy for a fetch outcome (see the module comment for the status rules). */
export function robotsPolicyFromFetch(result: RobotsFetchResult, userAgent: string = SVC_USER_AGENT): RobotsPolicy {
  if ('unreachable' in result) return disallowAllPolicy();
  const { status } = result;
  if (status >= 200 && status < 300) return createRobotsPolicy(result.body, userAgent);
  if ((status >= 300 && status < 400) || (status >= 400 && status < 500 && status !== 429)) return createRobotsPolicy(null, userAgent);
  return disallowAllPolicy();
}
