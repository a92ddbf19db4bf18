import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Parser } from 'htmlparser2';
import { SvcError } from '@svc/kit';
import type { BlockedPage } from '../domain/crawl-job.js';

/**
 * Block and challenge pages: a page a site answers instead of itself (a bot challenge, a
 * captcha, a login wall, a rate-limit page, a "please enable JavaScript" shell, a soft 404
 * served with 200, a consent interstitial, a page that reloads itself) is a failure of the
 * fetch, never content. The page fetcher (fetch-page.ts) judges every answer it reads with
 * `detectBlock`; the knowledge sync also catches a shell that many URLs of one site answer
 * identically (`createShellTracker`).
 *
 * Decisions:
 * - One table of rules, first match wins, most specific first. A rule looks at the status,
 *   the headers and one linear pass over the HTML (htmlparser2's tokenizer: title, first h1,
 *   visible text, noscript text, password inputs, scripts, meta refresh, and the ids, classes
 *   and script/iframe/form addresses of the page). Patterns are fixed strings and regular
 *   expressions without nested quantifiers, run on bounded text.
 * - Words alone never block: a vendor is recognised by its markup (Cloudflare's
 *   `challenge-platform`, DataDome's `captcha-delivery.com`, a reCAPTCHA widget's class), and
 *   the rules that read words (soft 404, login, JavaScript, consent) also need a page with
 *   little visible text. An article that discusses captchas, cookie banners or 404 pages is
 *   content.
 * - 401 and 403 answers are blocks (`login-wall` and `access-denied`) whatever their body: a
 *   crawler that is refused is blocked, and the body says by whom when it can. 429 is
 *   `rate-limited`; a 503 is a block only when its body is a challenge.
 */

export const BLOCK_KINDS = ['challenge', 'captcha', 'access-denied', 'login-wall', 'rate-limited', 'javascript-required', 'soft-404', 'consent', 'refresh-loop', 'repeated-shell'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

export interface BlockVerdict {
  kind: BlockKind;
  /** The rule of RULES that matched (or `repeated-shell`). */
  rule: string;
  /** One sentence for people: what was seen. */
  reason: string;
}

/** What the rules see of one answer. */
export interface PageSignals {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  title: string;
  h1: string;
  /** Visible text (no script, style, noscript or template), whitespace collapsed, at most TEXT_KEPT characters. */
  text: string;
  /** Visible characters, whitespace not counted (at least SMALL_TEXT for a page not read to its end). */
  textLength: number;
  noscript: string;
  passwordInputs: number;
  scripts: number;
  refresh: { seconds: number; target: string | null } | null;
  /** ids, classes and script, iframe and form addresses, lower case, space separated. */
  markup: string;
  /** The first HTML_SCANNED characters of the page in lower case (inline script markers); made when first read. */
  readonly head: string;
}

/** A page with less visible text than this is "small": the word-reading rules apply to it. */
export const SMALL_TEXT = 1000;
/** Less than this is "tiny": an interstitial or a shell. */
export const TINY_TEXT = 300;
const TEXT_KEPT = 4000;
const HTML_SCANNED = 64 * 1024;
/** Only this much of a page is read for signals; a longer page is never small (blocks are short). */
const HTML_PARSED = 512 * 1024;
const MARKUP_KEPT = 32 * 1024;

const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg']);
/** Elements inside a line of text; every other tag separates words. */
const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'i', 'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr']);
const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Non-whitespace characters of a text chunk. */
function inkOf(chunk: string): number {
  let n = 0;
  for (let i = 0; i < chunk.length; i++) if (chunk.charCodeAt(i) > 32) n++;
  return n;
}

/** HTML fed to the parser at a time; a 2xx page stops being read once it is no longer small. */
const SLICE = 1024;

/**
 * Reads the signals of one answer in one pass over its HTML. A 2xx page is read only until its
 * visible text reaches SMALL_TEXT: past that no rule reads anything but the head and the status.
 */
export function pageSignals(answer: { url: string; status: number; headers: IncomingHttpHeaders; html: string }): PageSignals {
  let title = '';
  let h1 = '';
  let text = '';
  let textLength = 0;
  let noscript = '';
  let passwordInputs = 0;
  let scripts = 0;
  let refresh: PageSignals['refresh'] = null;
  let markup = '';
  const open: string[] = [];
  let hidden = 0;
  let inTitle = false;
  let inH1 = false;
  let inNoscript = false;
  let head: string | undefined;
  const note = (value: string | undefined) => {
    if (value && markup.length < MARKUP_KEPT) markup += ` ${value.toLowerCase()}`;
  };
  const parser = new Parser({
    onopentag(name, attrs) {
      open.push(name);
      if (!INLINE.has(name) && text.length < TEXT_KEPT) text += ' ';
      if (HIDDEN.has(name)) hidden++;
      if (name === 'title') inTitle = true;
      else if (name === 'h1' && !h1) inH1 = true;
      else if (name === 'noscript') inNoscript = true;
      else if (name === 'script') {
        scripts++;
        note(attrs.src);
      } else if (name === 'input' && attrs.type?.toLowerCase() === 'password') passwordInputs++;
      else if (name === 'iframe') note(attrs.src);
      else if (name === 'form') note(attrs.action);
      else if (name === 'meta' && attrs['http-equiv']?.toLowerCase() === 'refresh' && !refresh) refresh = parseRefresh(attrs.content ?? '');
      note(attrs.id);
      note(attrs.class);
    },
    onclosetag(name) {
      // htmlparser2 closes implied elements too, so the stack stays in step with the events.
      const at = open.lastIndexOf(name);
      if (at < 0) return;
      if (!INLINE.has(name) && text.length < TEXT_KEPT) text += ' ';
      for (const closed of open.splice(at)) {
        if (HIDDEN.has(closed)) hidden--;
        if (closed === 'title') inTitle = false;
        else if (closed === 'h1') inH1 = false;
        else if (closed === 'noscript') inNoscript = false;
      }
    },
    ontext(chunk) {
      if (inTitle) title += chunk;
      if (inNoscript && noscript.length < TEXT_KEPT) noscript += chunk;
      if (hidden > 0) return;
      if (inH1) h1 += chunk;
      textLength += inkOf(chunk);
      if (text.length < TEXT_KEPT) text += chunk;
    },
  }, { decodeEntities: true });
  const html = answer.html.length > HTML_PARSED ? answer.html.slice(0, HTML_PARSED) : answer.html;
  const ok = answer.status >= 200 && answer.status < 300;
  let truncated = html.length < answer.html.length;
  for (let at = 0; at < html.length; at += SLICE) {
    parser.write(html.slice(at, at + SLICE));
    if (ok && textLength >= SMALL_TEXT && at + SLICE < html.length) {
      truncated = true;
      break;
    }
  }
  if (!truncated) parser.end();
  const collapsed = collapse(text);
  return {
    url: answer.url,
    status: answer.status,
    headers: answer.headers,
    title: collapse(title),
    h1: collapse(h1),
    text: collapsed.slice(0, TEXT_KEPT),
    textLength: truncated ? Math.max(textLength, SMALL_TEXT) : textLength,
    noscript: collapse(noscript),
    passwordInputs,
    scripts,
    refresh,
    markup,
    // Most pages never need it (no rule reads it for a long 2xx page), so it is made on demand.
    get head() {
      head ??= answer.html.slice(0, HTML_SCANNED).toLowerCase();
      return head;
    },
  };
}

/** `<meta http-equiv=refresh content="5; url=/next">`: its delay and target (null: this page). */
function parseRefresh(content: string): PageSignals['refresh'] {
  const text = content.slice(0, 2048);
  const cut = text.search(/[;,]/);
  const delay = (cut < 0 ? text : text.slice(0, cut)).trim();
  if (!/^\d+(\.\d*)?$/.test(delay)) return null;
  const rest = cut < 0 ? '' : text.slice(cut + 1).trim();
  const target = rest.replace(/^url\s*=\s*/i, '').trim().replace(/^['"]|['"]$/g, '').trim();
  return { seconds: Math.floor(Number(delay)), target: target || null };
}

const header = (signals: PageSignals, name: string) => {
  const value = signals.headers[name];
  return (Array.isArray(value) ? value.join(', ') : (value ?? '')).toLowerCase();
};
const small = (s: PageSignals) => s.textLength < SMALL_TEXT;
const tiny = (s: PageSignals) => s.textLength < TINY_TEXT;
const hasAny = (haystack: string, needles: readonly string[]) => needles.find((n) => haystack.includes(n));

/** Bot-protection vendors, each recognised by markup or headers only it produces. */
const VENDORS: { name: string; markers: readonly string[]; headers?: readonly string[] }[] = [
  { name: 'Cloudflare', markers: ['/cdn-cgi/challenge-platform/', '_cf_chl_opt', 'cf-browser-verification', 'cf-challenge-running'] },
  { name: 'DataDome', markers: ['captcha-delivery.com'], headers: ['x-datadome', 'x-dd-b'] },
  { name: 'PerimeterX (HUMAN)', markers: ['px-captcha', '_pxappid', 'captcha.px-cdn.net'] },
  { name: 'Imperva (Incapsula)', markers: ['_incapsula_resource', 'incapsula incident id'] },
  { name: 'AWS WAF', markers: ['awswaf.com', 'aws-waf-token', 'gokuprops'] },
  { name: 'Sucuri', markers: ['sucuri website firewall', 'sucuri_cloudproxy'] },
  { name: 'Akamai', markers: ['errors.edgesuite.net', 'errors&#46;edgesuite&#46;net'] },
];

const CAPTCHA_WIDGETS = ['g-recaptcha', 'recaptcha/api.js', 'h-captcha', 'hcaptcha.com/1/api.js', 'cf-turnstile', 'challenges.cloudflare.com/turnstile', 'frc-captcha'];
const CONSENT_MARKERS = ['onetrust', 'cookiebot', 'didomi', 'qc-cmp', 'truste', 'usercentrics', 'consent-banner', 'cookie-consent', 'cmp-container', 'sp_message_container'];
const LOGIN_WORDS = /\b(sign[ -]?in|log[ -]?in|login|anmelden|connexion|iniciar sesi[oó]n|members only|subscribers only)\b/i;
const JS_WORDS = /\b(enable|turn on|activate)\b[^.]{0,40}\bjavascript\b|\bjavascript\b[^.]{0,30}\b(required|disabled|needed|must be enabled)\b|\brequires? javascript\b/i;
const NOT_FOUND_WORDS = /\b404\b|\bnot found\b|\bcould ?n[o']t (be )?find\b|\b(does ?n[o']t|does not|no longer) exists?\b|\bno longer available\b|\bnicht gefunden\b|\bintrouvable\b/i;
const CHALLENGE_WORDS = /\b(checking (your browser|your connection|if the site connection is secure)|verify(ing)? (you are|that you are) (human|not a robot)|please wait while we (check|verify)|just a moment)\b/i;

interface Rule {
  name: string;
  kind: BlockKind;
  /** The reason when the rule matches, else undefined. */
  test(s: PageSignals): string | undefined;
}

/** The rules, in the order they are tried. */
export const RULES: readonly Rule[] = [
  {
    name: 'vendor-challenge',
    kind: 'challenge',
    test(s) {
      if (header(s, 'cf-mitigated') === 'challenge') return 'Cloudflare challenge (cf-mitigated: challenge)';
      if (s.status < 400 && !small(s)) return undefined;
      for (const vendor of VENDORS) {
        const marker = hasAny(s.head, vendor.markers) ?? hasAny(s.markup, vendor.markers) ?? vendor.headers?.find((h) => s.headers[h] !== undefined);
        if (marker) return `${vendor.name} bot protection page (${marker})`;
      }
      return undefined;
    },
  },
  {
    name: 'captcha-widget',
    kind: 'captcha',
    test: (s) => {
      const widget = small(s) ? hasAny(s.markup, CAPTCHA_WIDGETS) : undefined;
      return widget ? `a captcha (${widget}) on a page with ${s.textLength} characters of text` : undefined;
    },
  },
  {
    name: 'status-429',
    kind: 'rate-limited',
    test: (s) => (s.status === 429 ? `HTTP 429 Too Many Requests${header(s, 'retry-after') ? ` (Retry-After: ${header(s, 'retry-after')})` : ''}` : undefined),
  },
  {
    name: 'status-401',
    kind: 'login-wall',
    test: (s) => (s.status === 401 ? `HTTP 401 asks for credentials${header(s, 'www-authenticate') ? ` (${header(s, 'www-authenticate').slice(0, 60)})` : ''}` : undefined),
  },
  {
    name: 'status-403',
    kind: 'access-denied',
    test: (s) => (s.status === 403 ? `HTTP 403 Forbidden${s.title ? `: "${s.title.slice(0, 80)}"` : ''}` : undefined),
  },
  {
    name: 'self-refresh',
    kind: 'refresh-loop',
    test: (s) => {
      if (!s.refresh || !tiny(s)) return undefined;
      let target: string | null = null;
      try {
        target = s.refresh.target ? new URL(s.refresh.target, s.url).href : null;
      } catch {
        return undefined;
      }
      return target === null || target === s.url ? `the page reloads itself after ${s.refresh.seconds} s (meta refresh)` : undefined;
    },
  },
  {
    name: 'challenge-words',
    kind: 'challenge',
    test: (s) => {
      if (!tiny(s) && !(s.status === 503 && small(s))) return undefined;
      const said = CHALLENGE_WORDS.exec(`${s.title} ${s.text}`);
      return said ? `an interstitial saying "${said[0]}"` : undefined;
    },
  },
  {
    name: 'login-form',
    kind: 'login-wall',
    test: (s) => (s.passwordInputs > 0 && small(s) && LOGIN_WORDS.test(`${s.title} ${s.h1}`) ? `a sign-in form ("${(s.h1 || s.title).slice(0, 60)}") instead of the page` : undefined),
  },
  {
    name: 'javascript-required',
    kind: 'javascript-required',
    test: (s) => {
      if (!tiny(s)) return undefined;
      const said = JS_WORDS.exec(`${s.noscript} ${s.text}`);
      if (said) return `a shell that says "${said[0]}"`;
      return s.textLength === 0 && s.scripts > 0 ? `an empty page filled in by ${s.scripts} script(s)` : undefined;
    },
  },
  {
    name: 'soft-404',
    kind: 'soft-404',
    test: (s) => {
      if (s.status < 200 || s.status >= 300 || !small(s)) return undefined;
      const said = NOT_FOUND_WORDS.exec(s.title) ?? NOT_FOUND_WORDS.exec(s.h1);
      return said ? `a "not found" page served with HTTP ${s.status} ("${(said.input).slice(0, 80)}")` : undefined;
    },
  },
  {
    name: 'consent-interstitial',
    kind: 'consent',
    test: (s) => {
      if (!small(s)) return undefined;
      const host = safeHost(s.url);
      const marker = hasAny(s.markup, CONSENT_MARKERS) ?? (host?.startsWith('consent.') ? host : undefined);
      return marker && /\b(cookies?|consent|privacy)\b/i.test(s.text) ? `a consent interstitial (${marker}) with no content behind it` : undefined;
    },
  },
];

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** The first rule an answer matches, or null when it is the site's own page. */
export function judgeSignals(signals: PageSignals): BlockVerdict | null {
  for (const rule of RULES) {
    const reason = rule.test(signals);
    if (reason !== undefined) return { kind: rule.kind, rule: rule.name, reason };
  }
  return null;
}

/** Whether an answer (status, headers, decoded HTML) is a block page, and which. */
export function detectBlock(answer: { url: string; status: number; headers: IncomingHttpHeaders; html: string }): BlockVerdict | null {
  return judgeSignals(pageSignals(answer));
}

/** At this many URLs of one host answering the same small text, that text is a shell. */
export const SHELL_REPEATS = 3;

/**
 * Finds the shell many URLs of one site answer alike (a challenge no rule knows, a "temporarily
 * unavailable" page): feed it each small page's main text; it says which URLs share a text
 * with at least SHELL_REPEATS - 1 other URLs of the same host. Texts of SMALL_TEXT or more
 * characters are never shells and should not be fed.
 */
export function createShellTracker() {
  const byText = new Map<string, Set<string>>();
  const keyOf = (url: string, text: string) => `${safeHost(url) ?? ''}\u0000${createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('base64url')}`;
  return {
    add(url: string, text: string): void {
      const key = keyOf(url, text);
      const urls = byText.get(key) ?? new Set<string>();
      urls.add(url);
      byText.set(key, urls);
    },
    /** The verdict for a URL fed with `text`, or null when too few URLs share it. */
    verdict(url: string, text: string): BlockVerdict | null {
      const urls = byText.get(keyOf(url, text));
      if (!urls || urls.size < SHELL_REPEATS) return null;
      return { kind: 'repeated-shell', rule: 'repeated-shell', reason: `${urls.size} pages of ${safeHost(url)} answered the same ${text.length}-character text` };
    },
  };
}

/** The blocked page a fetch failure stands for (the fetcher's `blocked-page` error), else undefined. */
export function blockedPageOf(error: unknown): BlockedPage | undefined {
  if (!(error instanceof SvcError) || error.extensions.slug !== 'blocked-page') return undefined;
  const details = error.extensions.details as { url: string; status: number; block: BlockVerdict };
  return { url: details.url, status: details.status, kind: details.block.kind, rule: details.block.rule, reason: details.block.reason };
}
