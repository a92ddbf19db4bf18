/**
 * Validation of the crawl job request (`POST /api/v1/crawl/jobs`). Errors come in three tiers,
 * checked in this order: a body that is not an object, or members of the wrong JSON type
 * (`jobName: 42`), give one 400 naming every such member; then the two values the issue makes 400s,
 * a bad `cronExpression` (the message of cron.ts, naming the expression and the problem) and a
 * `targetVectorDb` other than `pgvector` (naming the value and the allowed ones), in one 400; then
 * every rule failure is listed in one 422 with JSON pointers (`/targetUrl`, `/selectors/listRow`,
 * `/ragConfig/chunkOverlap`, ...). Unknown members are 422s too (a misspelt `cronExpresion` would
 * otherwise silently make a one-time job), and `null` counts as absent for optional members.
 * Rules: `jobName` 1–200 characters after trimming, no control characters; `targetUrl` an absolute
 * http(s) URL with a host and without credentials, at most 2048 characters, returned in the WHATWG
 * serialisation (whether its address is public is the fetcher's SSRF guard's business); no
 * `cronExpression` means a one-time job, run at `runAt` or at once (see {@link firstRunAt}), and
 * `runAt` (only for one-time jobs; both together is a 422) is an ISO 8601 date-time with seconds
 * optional and a `Z` or `±hh:mm` offset, a real date and strictly in the future (run-at.ts). Selectors are CSS
 * optionally ending in `::text` (the default) or `::attr(name)` (name lower-cased), the grammar of
 * selector.ts, checked by selector-check.ts: `listRow` is required and must be plain CSS; `title`, `publishedAt` and
 * `link` are optional, empty means absent, and an empty CSS part or `:scope` means the row itself;
 * the CSS part must parse (checked with jsdom, which also runs it) and must not use other
 * pseudo-elements (`::before` selects nothing) or start with a combinator (write `:scope > a`).
 * `volatileSelectors` (default none, at most 50) are CSS selectors of detail-page elements change
 * tracking ignores: plain CSS as `listRow` (no suffix), each checked the same way, a problem named
 * `/volatileSelectors/<index>`. `enableRagSync` defaults to false, `robotsTxt` to `respect` (or `ignore`), `dayFirst` to true
 * (day/month order of numeric dates, see published-date.ts). `ragConfig` members default
 * individually to `pgvector`, `svc-local-embedding`, 512 and 64 tokens (overlap 64 or an eighth of
 * a given chunkSize, whichever is smaller); it is filled in when `enableRagSync` is true and kept
 * (validated) when given without it. `embeddingModel` is any name of 1–200 characters here; whether
 * the model gateway serves it is checked by the service (service/embedding-model-check.ts).
 */
import { pointerOf, SvcError, validationError, valueAt, type FieldProblem } from '@svc/kit';
import type { z } from 'zod';
import { crawlJobRequestSchema, ROBOTS_TXT_POLICIES, VECTOR_DBS, WEBHOOK_EVENTS } from '../contract.js';
import { chunkingProblems } from './chunking.js';
import { nextRunAt, parseCron } from './cron.js';
import { parseRunAt } from './run-at.js';
import { analyseSelector, quote } from './selector-check.js';

export type { Extract as SelectorExtract, ParsedSelector } from './selector.js';

export interface CrawlSelectors {
  listRow: string;
  title?: string;
  publishedAt?: string;
  link?: string;
}

export type VectorDb = (typeof VECTOR_DBS)[number];

export type RobotsTxtPolicy = (typeof ROBOTS_TXT_POLICIES)[number];

export interface RagConfig {
  targetVectorDb: VectorDb;
  embeddingModel: string;
  /** o200k_base tokens per chunk. */
  chunkSize: number;
  /** o200k_base tokens shared by consecutive chunks. */
  chunkOverlap: number;
}

export const RAG_DEFAULTS: Readonly<RagConfig> = {
  targetVectorDb: 'pgvector',
  embeddingModel: 'svc-local-embedding',
  chunkSize: 512,
  chunkOverlap: 64,
};

export interface CrawlJobInput {
  jobName: string;
  targetUrl: string;
  /** Present for periodic jobs (normalised by cron.ts); absent for one-time jobs. */
  cronExpression?: string;
  /** One-time jobs only: when to run; absent means at once. */
  runAt?: Date;
  selectors: CrawlSelectors;
  enableRagSync: boolean;
  /** Present when enableRagSync is true (defaults filled in) or when the request gave one. */
  ragConfig?: RagConfig;
  robotsTxt: RobotsTxtPolicy;
  /** Order of numeric dates such as 01/02/2026: true means day first. */
  dayFirst: boolean;
  /** Per-execution events posted to a URL (its address is checked by the service before the job is stored). */
  webhook?: CrawlWebhookInput;
  /** CSS selectors of detail-page elements left out of the main text change tracking compares (trimmed, duplicates dropped). */
  volatileSelectors: string[];
}

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface CrawlWebhookInput {
  url: string;
  events: WebhookEvent[];
  secret: string;
}

/** An absolute http(s) URL without credentials, normalised; or the problem with it. */
function httpUrl(name: string, text: string): { url: string } | { problem: string } {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { problem: `${name} must be an absolute http or https URL; got ${show(text)}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { problem: `${name} must use http or https; got ${show(parsed.protocol.slice(0, -1))}` };
  if (parsed.hostname === '') return { problem: `${name} must name a host; got ${show(text)}` };
  if (parsed.username !== '' || parsed.password !== '') return { problem: `${name} must not contain credentials (user:password@)` };
  return { url: parsed.href };
}

export interface ParseCrawlJobOptions {
  /** The present, for the "runAt in the future" rule (default: new Date()). */
  now?: Date;
}

const SELECTOR_FIELDS = ['listRow', 'title', 'publishedAt', 'link'] as const;

const show = (value: unknown) => JSON.stringify(value) ?? String(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const present = (value: unknown) => value !== undefined && value !== null;
/** A JSON pointer token (RFC 6901). */
const token = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function typeProblem(pointer: string, value: unknown, expected: 'string' | 'boolean' | 'number' | 'object'): FieldProblem | null {
  if (!present(value)) return null;
  const ok = expected === 'object' ? isObject(value) : typeof value === expected;
  if (ok) return null;
  const name = pointer.slice(pointer.lastIndexOf('/') + 1);
  return { pointer, detail: `${name} must be ${expected === 'object' ? 'an object' : `a ${expected}`}; got ${show(value)}` };
}

/** Member-type problems of `selectors` (400s). */
function selectorTypeProblems(selectors: unknown): (FieldProblem | null)[] {
  return [
    typeProblem('/selectors', selectors, 'object'),
    ...(isObject(selectors) ? SELECTOR_FIELDS.map((f) => typeProblem(`/selectors/${f}`, selectors[f], 'string')) : []),
  ];
}

type Fail = (pointer: string, detail: string) => void;

/** Reports the members of `selectors` that are no selector. */
function unknownSelectorProblems(selectors: unknown, fail: Fail): void {
  if (!isObject(selectors)) return;
  for (const key of Object.keys(selectors)) {
    if (!(SELECTOR_FIELDS as readonly string[]).includes(key)) fail(`/selectors/${token(key)}`, `${key} is not a known selector`);
  }
}

/** Reports every rule failure of the selectors (of the right JSON types) to `fail`; returns them trimmed. */
function selectorRuleProblems(selectors: unknown, fail: Fail): Partial<CrawlSelectors> {
  const out: Partial<CrawlSelectors> = {};
  if (!isObject(selectors)) {
    fail('/selectors', 'selectors is required (at least selectors.listRow)');
    return out;
  }
  const sel = selectors as Record<string, string | null | undefined>;
  for (const field of SELECTOR_FIELDS) {
    const spec = sel[field];
    if (!present(spec) || spec!.trim() === '') {
      if (field === 'listRow') fail('/selectors/listRow', 'selectors.listRow is required');
      continue;
    }
    const result = analyseSelector(spec!, field === 'listRow' ? 'row' : 'field');
    if ('problem' in result) fail(`/selectors/${field}`, `selectors.${field} ${quote(spec!)}: ${result.problem}`);
    else out[field] = spec!.trim();
  }
  return out;
}

/**
 * Validates a job's new selector set as {@link parseCrawlJobInput} validates `selectors`: 400
 * for members of the wrong JSON type, 422 listing every rule failure (`/selectors/listRow`, ...).
 */
export function parseCrawlSelectors(selectors: unknown): CrawlSelectors {
  const types = selectorTypeProblems(selectors).filter((p): p is FieldProblem => p !== null);
  if (types.length > 0) throw new SvcError('BAD_USER_INPUT', `Malformed selectors: ${types.map((p) => p.detail).join('; ')}`, { errors: types });
  const problems: FieldProblem[] = [];
  const fail: Fail = (pointer, detail) => problems.push({ pointer, detail });
  unknownSelectorProblems(selectors, fail);
  const out = selectorRuleProblems(selectors, fail);
  if (problems.length > 0) throw validationError(problems);
  return out as CrawlSelectors;
}

const TYPE_WORDS: Record<string, string> = { string: 'a string', boolean: 'a boolean', number: 'a number', object: 'an object', array: 'an array' };
const MEMBER_KINDS: Record<string, string> = { '': 'field', selectors: 'selector', ragConfig: 'ragConfig field', webhook: 'webhook field' };
/** Members whose rules are reported by a later check in its own words (chunking.ts, the tier-2 vector database refusal). */
const CHECKED_LATER = new Set(['/ragConfig/chunkSize', '/ragConfig/chunkOverlap', '/ragConfig/targetVectorDb']);
const FIELD_ORDER = Object.keys(crawlJobRequestSchema.shape);

/** The contract schema's findings, split into member-type problems (400) and rule problems (422). */
function contractProblems(issues: readonly z.core.$ZodIssue[], body: unknown): { types: FieldProblem[]; rules: FieldProblem[] } {
  const types: FieldProblem[] = [];
  const rules: FieldProblem[] = [];
  for (const issue of issues) {
    const pointer = pointerOf(issue.path);
    const last = issue.path.at(-1);
    const name = typeof last === 'number' ? `${String(issue.path.at(-2))}[${last}]` : String(last ?? '');
    const value = valueAt(body, issue.path);
    const wrongType = issue.code === 'invalid_type' ? TYPE_WORDS[issue.expected] : issue.code === 'invalid_value' && typeof value !== 'string' && issue.values.every((v) => typeof v === 'string') ? TYPE_WORDS.string : undefined;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) rules.push({ pointer: `${pointer}/${token(key)}`, detail: `${key} is not a known ${MEMBER_KINDS[issue.path.join('.')] ?? 'field'}` });
    } else if (issue.code === 'invalid_type' && !present(value)) {
      rules.push({ pointer, detail: `${issue.path.join('.')} is required${pointer === '/selectors' ? ' (at least selectors.listRow)' : ''}` });
    } else if (wrongType && present(value)) {
      types.push({ pointer, detail: `${name} must be ${wrongType}; got ${show(value)}` });
    } else if (!CHECKED_LATER.has(pointer)) {
      const got = issue.code === 'invalid_value' ? `; got ${show(value)}` : issue.code === 'too_big' && typeof value === 'string' ? `; got ${value.trim().length}` : '';
      rules.push({ pointer, detail: `${name} ${issue.message}${got}` });
    }
  }
  return { types, rules };
}

/** Problems in the order of the request's members, unknown members first (outermost first), as a reader scans the body. */
function inFieldOrder(problems: FieldProblem[]): FieldProblem[] {
  const rank = (p: FieldProblem) => (p.detail.includes(' is not a known ') ? p.pointer.split('/').length - 100 : FIELD_ORDER.indexOf(p.pointer.split('/')[1] ?? ''));
  return problems.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i).map(({ p }) => p);
}

/**
 * Validates and normalises a crawl job request body. Throws 400 for a malformed body, a bad
 * cronExpression or an unsupported targetVectorDb, and 422 listing every rule failure.
 */
export function parseCrawlJobInput(body: unknown, options: ParseCrawlJobOptions = {}): CrawlJobInput {
  const now = options.now ?? new Date();
  if (!isObject(body)) {
    throw new SvcError('BAD_USER_INPUT', `The crawl job request must be a JSON object; got ${Array.isArray(body) ? 'an array' : show(body)}`);
  }

  // Tier 1: JSON types (400), from the contract's schema; its other findings are tier-3 rules.
  const contract = crawlJobRequestSchema.safeParse(body);
  const { types, rules } = contractProblems(contract.success ? [] : contract.error.issues, body);
  if (types.length > 0) {
    throw new SvcError('BAD_USER_INPUT', `Malformed crawl job request: ${types.map((p) => p.detail).join('; ')}`, { errors: types });
  }
  const selectors = body.selectors;
  const rag = body.ragConfig;
  const jobName = body.jobName as string | undefined | null;
  const targetUrl = body.targetUrl as string | undefined | null;
  const cronText = body.cronExpression as string | undefined | null;
  const runAtText = body.runAt as string | undefined | null;
  const ragIn = (isObject(rag) ? rag : undefined) as Record<string, string | number | null | undefined> | undefined;

  // Tier 2: the values the issue answers with 400.
  const refused: FieldProblem[] = [];
  let cronExpression: string | undefined;
  if (present(cronText)) {
    try {
      cronExpression = parseCron(cronText!).expression;
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      refused.push({ pointer: '/cronExpression', detail: error.message });
    }
  }
  const vectorDb = ragIn?.targetVectorDb ?? RAG_DEFAULTS.targetVectorDb;
  if (!(VECTOR_DBS as readonly unknown[]).includes(vectorDb)) {
    refused.push({
      pointer: '/ragConfig/targetVectorDb',
      detail: `targetVectorDb ${show(vectorDb)} is not supported; allowed: ${VECTOR_DBS.join(', ')}`,
    });
  }
  if (refused.length > 0) {
    throw new SvcError('BAD_USER_INPUT', refused.map((p) => p.detail).join('; '), { errors: refused });
  }

  // Tier 3: rules (422), every failure listed: the schema's, then those JSON Schema cannot state.
  const problems: FieldProblem[] = [...rules];
  const fail = (pointer: string, detail: string) => problems.push({ pointer, detail });
  const ruled = (pointer: string) => rules.some((p) => p.pointer === pointer);

  const name = (jobName ?? '').trim();
  let url = '';
  if (!ruled('/targetUrl')) {
    const checked = httpUrl('targetUrl', (targetUrl ?? '').trim());
    if ('problem' in checked) fail('/targetUrl', checked.problem);
    else url = checked.url;
  }

  let webhook: CrawlWebhookInput | undefined;
  const hook = isObject(body.webhook) ? (body.webhook as { url?: string; events?: WebhookEvent[] | null; secret?: string }) : undefined;
  if (hook) {
    const checked = ruled('/webhook/url') ? undefined : httpUrl('webhook.url', (hook.url ?? '').trim());
    if (checked && 'problem' in checked) fail('/webhook/url', checked.problem);
    if (checked && 'url' in checked && typeof hook.secret === 'string' && !ruled('/webhook/secret') && !ruled('/webhook/events')) {
      webhook = { url: checked.url, events: [...new Set(hook.events ?? WEBHOOK_EVENTS)], secret: hook.secret };
    }
  }

  let runAt: Date | undefined;
  if (present(runAtText)) {
    if (cronExpression !== undefined) {
      fail('/runAt', 'runAt is only for one-time jobs; send either cronExpression (periodic) or runAt (one-time), not both');
    } else {
      const parsed = parseRunAt(runAtText!);
      if (typeof parsed === 'string') fail('/runAt', `runAt ${parsed}`);
      else if (parsed.getTime() <= now.getTime()) fail('/runAt', `runAt must be in the future; got ${show(runAtText)}`);
      else runAt = parsed;
    }
  }

  const outSelectors = selectorRuleProblems(selectors, (pointer, detail) => {
    if (!ruled(pointer)) fail(pointer, detail);
  });

  const enableRagSync = (body.enableRagSync as boolean | null | undefined) ?? false;
  let ragConfig: RagConfig | undefined;
  if (enableRagSync || ragIn) {
    const chunkSize = (ragIn?.chunkSize as number | null | undefined) ?? RAG_DEFAULTS.chunkSize;
    const defaultOverlap = Number.isInteger(chunkSize)
      ? Math.min(RAG_DEFAULTS.chunkOverlap, Math.floor(chunkSize / 8))
      : RAG_DEFAULTS.chunkOverlap;
    const chunkOverlap = (ragIn?.chunkOverlap as number | null | undefined) ?? defaultOverlap;
    const model = ((ragIn?.embeddingModel as string | null | undefined) ?? RAG_DEFAULTS.embeddingModel).trim();
    problems.push(...chunkingProblems(chunkSize, chunkOverlap).filter((p) => !ruled(p.pointer)));
    ragConfig = { targetVectorDb: vectorDb as VectorDb, embeddingModel: model, chunkSize, chunkOverlap };
  }

  const robotsTxt = (body.robotsTxt as string | null | undefined) ?? 'respect';

  const volatileSelectors: string[] = [];
  (body.volatileSelectors as string[] | null | undefined)?.forEach((spec, i) => {
    const pointer = `/volatileSelectors/${i}`;
    if (ruled(pointer) || ruled('/volatileSelectors')) return;
    const result = analyseSelector(spec, 'element');
    if ('problem' in result) fail(pointer, `volatileSelectors[${i}] ${quote(spec)}: ${result.problem}`);
    else if (!volatileSelectors.includes(spec.trim())) volatileSelectors.push(spec.trim());
  });

  if (problems.length > 0) throw validationError(inFieldOrder(problems));
  return {
    jobName: name,
    targetUrl: url,
    ...(cronExpression !== undefined ? { cronExpression } : {}),
    ...(runAt !== undefined ? { runAt } : {}),
    selectors: outSelectors as CrawlSelectors,
    enableRagSync,
    ...(ragConfig !== undefined ? { ragConfig } : {}),
    robotsTxt: robotsTxt as RobotsTxtPolicy,
    dayFirst: (body.dayFirst as boolean | null | undefined) ?? true,
    ...(webhook !== undefined ? { webhook } : {}),
    volatileSelectors,
  };
}

/**
 * When a new job first runs: the next cron firing after `now` for a periodic job, else `runAt`,
 * else `now` (a one-time job without runAt runs at once).
 */
export function firstRunAt(job: Pick<CrawlJobInput, 'cronExpression' | 'runAt'>, now: Date = new Date()): Date {
  if (job.cronExpression !== undefined) return nextRunAt(job.cronExpression, now);
  return job.runAt ?? now;
}
