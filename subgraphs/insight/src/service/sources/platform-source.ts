import type { Labels, Point, Series } from '../../domain/metric.js';
import type { MetricQuery } from '../../domain/metric-input.js';
import type { GraphCall } from '../graph-call.js';
import type { Caller, CatalogEntry, MetricSourceAdapter } from './metric-source.js';

/** One service's daily figures: the operation that reads them and how its rows become points. */
interface Family<Row> {
  operation: string;
  /** Label names a lookup may filter on, and the ones the operation can filter itself. */
  labels: string[];
  variables(window: { from: Date; to: Date }, labels: Labels): Record<string, unknown>;
  rows(data: Record<string, unknown>): Row[];
  day(row: Row): string;
  labelsOf(row: Row): Labels;
  metrics: Record<string, { unit: string; description: string; synonyms: string[]; value(row: Row): number }>;
}

interface UsageRow {
  agentCode: string;
  day: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

interface SubmissionRow {
  siteKey: string;
  formKey: string;
  day: string;
  submissions: number;
  spam: number;
}

interface ItemRow {
  tenantId: string;
  jobId: string;
  jobName: string;
  day: string;
  items: number;
  newItems: number;
  executions: number;
  failedRuns: number;
  blockedRuns: number;
  blockedPages: number;
}

const DAY = 86_400_000;
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

const llmUsage: Family<UsageRow> = {
  operation: 'InsightUsage',
  labels: ['agent'],
  variables: ({ from, to }, labels) => ({ from: isoDay(from), to: isoDay(to), ...(labels.agent ? { agentCode: labels.agent } : {}) }),
  rows: (data) => data.usage as UsageRow[],
  day: (r) => r.day,
  labelsOf: (r) => ({ agent: r.agentCode }),
  metrics: {
    'llm.cost_usd': { unit: 'USD', description: 'Model gateway spend per agent per day', synonyms: ['model spend', 'llm spend', 'ai spend', 'model cost', 'thinking cost'], value: (r) => r.costUsd },
    'llm.tokens': { unit: 'tokens', description: 'Prompt and completion tokens per agent per day', synonyms: ['model tokens'], value: (r) => r.promptTokens + r.completionTokens },
    'llm.requests': { unit: 'requests', description: 'Model gateway requests per agent per day', synonyms: ['model requests', 'llm calls'], value: (r) => r.requests },
  },
};

const formSubmissions: Family<SubmissionRow> = {
  operation: 'InsightFormSubmissions',
  labels: ['site', 'form'],
  variables: ({ from, to }, labels) => ({ from: from.toISOString(), to: to.toISOString(), ...(labels.site ? { siteKey: labels.site } : {}) }),
  rows: (data) => data.formSubmissionCounts as SubmissionRow[],
  day: (r) => r.day,
  labelsOf: (r) => ({ site: r.siteKey, form: r.formKey }),
  metrics: {
    'cms.form_submissions': { unit: 'submissions', description: 'Form submissions (not spam) per site and form per day', synonyms: ['leads', 'inquiries', 'form submissions'], value: (r) => r.submissions },
    'cms.form_spam': { unit: 'submissions', description: 'Submissions caught by the honeypot per site and form per day', synonyms: ['spam'], value: (r) => r.spam },
  },
};

const crawlItems: Family<ItemRow> = {
  operation: 'InsightCrawlItems',
  labels: ['job', 'job_name', 'tenant'],
  variables: ({ from, to }, labels) => ({ from: from.toISOString(), to: to.toISOString(), ...(labels.job ? { jobId: labels.job } : {}) }),
  rows: (data) => data.crawlItemCounts as ItemRow[],
  day: (r) => r.day,
  labelsOf: (r) => ({ job: r.jobId, job_name: r.jobName, tenant: r.tenantId }),
  metrics: {
    'crawl.items': { unit: 'items', description: 'Items collected by crawl runs per job per day (0 on a day whose runs all failed)', synonyms: ['crawled items'], value: (r) => r.items },
    'crawl.new_items': { unit: 'items', description: 'Items seen for the first time per crawl job per day', synonyms: ['new items'], value: (r) => r.newItems },
    'crawl.runs': { unit: 'runs', description: 'Completed crawl runs per job per day', synonyms: ['crawl runs'], value: (r) => r.executions },
    'crawl.failed_runs': { unit: 'runs', description: 'Failed crawl runs per job per day (blocked runs included)', synonyms: ['failed crawls', 'crawl failures'], value: (r) => r.failedRuns },
    'crawl.blocked_runs': { unit: 'runs', description: 'Crawl runs per job per day whose list page was a block page (bot challenge, captcha, login wall, rate limit)', synonyms: ['blocked crawls', 'crawl blocks'], value: (r) => r.blockedRuns },
    'crawl.blocked_pages': { unit: 'pages', description: 'Pages per crawl job per day found to be block pages instead of content', synonyms: ['blocked pages', 'bot challenges'], value: (r) => r.blockedPages },
  },
};

// Family<Row> is invariant in Row; the table only needs each family's own rows to match.
const FAMILIES = [llmUsage, formSubmissions, crawlItems] as unknown as Family<Record<string, unknown>>[];
const familyOf = (name: string) => FAMILIES.find((f) => name in f.metrics);

/**
 * The platform's own figures as metrics, read through the router with the caller's authority:
 * the model gateway's spend, tokens and requests per agent (llm `usage`), form submissions per
 * site and form (cms `formSubmissionCounts`) and crawl items per job (crawl `crawlItemCounts`),
 * each per UTC day, so an analyst can ask why model spend jumped or leads fell. A lookup's label
 * filter narrows the series; a person the owning service refuses gets its refusal.
 */
export function platformSource(deps: { call: GraphCall; headers(caller: Caller): Promise<Record<string, string>> }): MetricSourceAdapter {
  return {
    kind: 'platform',
    serves: (name) => familyOf(name) !== undefined,
    async catalog(): Promise<CatalogEntry[]> {
      return FAMILIES.flatMap((family) =>
        Object.entries(family.metrics).map(([name, m]) => ({
          name,
          labels: {},
          unit: m.unit,
          source: 'platform' as const,
          description: `${m.description} (labels ${family.labels.join(', ')})`,
          synonyms: m.synonyms,
          labelNames: family.labels,
        })),
      );
    },
    async lookup(caller, query: MetricQuery): Promise<Series[]> {
      const family = familyOf(query.name)!;
      const metric = family.metrics[query.name]!;
      // Whole UTC days covering [from, to).
      const from = new Date(Math.floor(query.from / DAY) * DAY);
      const to = new Date(Math.ceil(query.to / DAY) * DAY);
      const data = await deps.call<Record<string, unknown>>(family.operation, family.variables({ from, to }, query.labels), await deps.headers(caller));
      const series = new Map<string, { labels: Labels; days: Map<number, number> }>();
      for (const row of family.rows(data)) {
        const t = Date.parse(`${family.day(row)}T00:00:00Z`);
        const labels = family.labelsOf(row);
        if (t < query.from || t >= query.to) continue;
        if (Object.entries(query.labels).some(([k, v]) => labels[k] !== v)) continue;
        const key = JSON.stringify(labels);
        const entry = series.get(key) ?? { labels, days: new Map<number, number>() };
        entry.days.set(t, (entry.days.get(t) ?? 0) + metric.value(row));
        series.set(key, entry);
      }
      return [...series.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([, { labels, days }]) => {
          const points: Point[] = [...days.entries()].sort((a, b) => a[0] - b[0]).map(([t, value]) => ({ t, value }));
          return { name: query.name, labels, unit: metric.unit, source: 'platform' as const, points };
        });
    },
  };
}
