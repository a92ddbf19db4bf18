/**
 * The analysis playbook: from the question and the metric catalog, the tool calls worth
 * making, in order. The model executes each task (it fills the tool's arguments itself from
 * the instruction, which spells them out), observes each result, may call more tools, and
 * writes the judgment; the plan makes sure even a small or offline model gathers the
 * evidence a person would: the figures asked about, what drives them, where they are
 * heading, what a proposed change would do, and what the knowledge base says.
 */

export interface CatalogItem {
  name: string;
  labels: Record<string, string>;
  unit: string | null;
}

export interface PlannedTask {
  tool: string;
  /** Arguments the plan suggests; the model may refine them. */
  args: Record<string, unknown>;
  /** The instruction given to the model, which names every argument as `name: value`. */
  instruction: string;
  why: string;
}

export interface Plan {
  target: string;
  /** Other metrics of the catalog the question could have meant. */
  alsoMatched: string[];
  tasks: PlannedTask[];
}

export interface PlanOptions {
  /** Default site for content reads (the requester's only site, else `demo`). */
  siteKey: string;
  /** Today, for windows such as "last week". */
  now: number;
  /** Whether the knowledge base, content and budgets can be read (the router is reachable). */
  crossService: boolean;
}

const SYNONYMS: Record<string, string[]> = {
  revenue: ['revenue', 'sales', 'income', 'turnover', 'earnings'],
  sessions: ['sessions', 'traffic', 'visits', 'visitors'],
  conversion_rate: ['conversion', 'conversions', 'convert', 'converting'],
  ad_spend: ['ad', 'ads', 'advertising', 'campaign', 'campaigns', 'marketing'],
  'llm.cost_usd': ['llm', 'model', 'models', 'ai', 'thinking', 'gateway'],
  'llm.tokens': ['tokens'],
  'cms.form_submissions': ['form', 'forms', 'submissions', 'leads', 'inquiries'],
  'crawl.items': ['crawl', 'crawled', 'crawler', 'items'],
};

const WHY = /\b(why|cause|caused|drop|dropped|jump|jumped|spike|spiked|fall|fell|rise|rose|decline|declined|increase[ds]?|decrease[ds]?|change[ds]?|explain)\b/;
const FUTURE = /\b(forecast|predict|projection|project|next|expect|expected|outlook|future|will)\b/;
const BUDGET = /\b(budget|budgets|llm|model|models|tokens|agent|agents|gateway|thinking)\b/;
const CONTENT = /\b(content|page|pages|landing|pricing|headline|cta|seo|website|site|conversion|publish)\b/;
const CHANGE = /(increase|raise|boost|grow|double|cut|reduce|decrease|lower|drop|add|more|less|\+|-)?\s*(?:by\s+)?([+-]?\d+(?:\.\d+)?)\s*(%|percent)/i;

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z0-9_.]+/).filter(Boolean));
}

function mentioned(prompt: Set<string>, name: string): boolean {
  const own = name.split(/[._]/).filter((w) => w.length > 2 && w !== 'usd' && w !== 'rate');
  return [...own, ...(SYNONYMS[name] ?? [])].some((w) => prompt.has(w));
}

/** Window of a lookup: enough to compare what the question compares. */
function windowDays(text: string): number {
  if (/\b(year|yearly|annual|12 months)\b/.test(text)) return 400;
  if (/\b(quarter|quarterly|3 months)\b/.test(text)) return 120;
  if (/\b(week|weekly|yesterday|days?)\b/.test(text)) return 35;
  return 90;
}

function horizonDays(text: string): number {
  const explicit = /next\s+(\d{1,3})\s+days?/.exec(text);
  if (explicit) return Math.min(366, Math.max(1, Number(explicit[1])));
  if (/next\s+week/.test(text)) return 7;
  if (/next\s+quarter/.test(text)) return 90;
  if (/next\s+year/.test(text)) return 365;
  return 30;
}

const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const labelArg = (labels: Record<string, string>) => Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');

/** An argument as the instruction writes it: strings with spaces or commas quoted, so a model reads them whole. */
export function spell(value: unknown): string {
  return typeof value === 'string' && /^[^\s,;"]+$/.test(value) ? value : JSON.stringify(value);
}

function instruction(tool: string, what: string, args: Record<string, unknown>): string {
  const spelled = Object.entries(args).map(([k, v]) => `${k}: ${spell(v)}`).join(', ');
  return `${what} Call ${tool} with ${spelled}.`;
}

function task(tool: string, what: string, why: string, args: Record<string, unknown>): PlannedTask {
  return { tool, args, instruction: instruction(tool, what, args), why };
}

export function planAnalysis(prompt: string, catalog: readonly CatalogItem[], options: PlanOptions): Plan {
  const text = prompt.toLowerCase();
  const promptWords = words(prompt);
  const names = [...new Set(catalog.map((c) => c.name))];
  // A metric named verbatim wins over one matched through a word of its name or a synonym.
  const exact = names.filter((n) => promptWords.has(n.toLowerCase()));
  const asked = [...exact, ...names.filter((n) => !exact.includes(n) && mentioned(promptWords, n))];
  const drivers = new Set(['ad_spend']);
  const target = exact[0] ?? asked.find((n) => !drivers.has(n)) ?? (names.includes('revenue') ? 'revenue' : names[0]);
  const alsoMatched = asked.filter((n) => n !== target);
  const tasks: PlannedTask[] = [task('list_metrics', 'See which metrics exist.', 'to know what can be measured', { name: '' })];
  if (!target) return { target: '', alsoMatched, tasks };

  const to = Math.floor(options.now / 86_400_000) * 86_400_000;
  const from = to - windowDays(text) * 86_400_000;
  const lookups = [target];
  if (WHY.test(text) && target === 'revenue') lookups.push('sessions', 'conversion_rate', 'ad_spend');
  for (const n of asked) if (!lookups.includes(n)) lookups.push(n);
  for (const name of lookups.filter((n) => names.includes(n)).slice(0, 5)) {
    tasks.push(task('lookup_metric', `Read ${name} day by day from ${day(from)} to ${day(to)}.`, name === target ? 'the figures asked about' : `a driver of ${target}`, { name, labels: '', from: day(from), to: day(to), step: '1d' }));
  }
  tasks.push(task('forecast_metric', `Forecast ${target}.`, FUTURE.test(text) ? 'the question asks where it is heading' : `where ${target} is heading if nothing changes`, { name: target, labels: '', horizon: horizonDays(text) }));

  const change = CHANGE.exec(prompt);
  if (change) {
    const size = Math.abs(Number(change[2]));
    const percent = change[2]!.startsWith('-') || change[1] === '-' || /\b(cut|cuts|reduce|reduced|decrease|lower|less)\b/.test(text) ? -size : size;
    const driver = asked.find((n) => n !== target) ?? (names.includes('ad_spend') ? 'ad_spend' : undefined);
    if (driver && driver !== target) {
      const channels = catalog.filter((c) => c.name === driver).map((c) => c.labels);
      const channel = channels.find((l) => Object.values(l).some((v) => promptWords.has(v.toLowerCase()))) ?? {};
      tasks.push(
        task('simulate_scenario', `Simulate ${percent >= 0 ? '+' : ''}${percent}% ${driver}${labelArg(channel) ? ` (${labelArg(channel)})` : ''} and its effect on ${target}.`, 'the question asks what a change would do', {
          target_metric: target,
          target_labels: '',
          driver_metric: driver,
          driver_labels: labelArg(channel),
          change_percent: percent,
          horizon: horizonDays(text),
          seed: 1,
        }),
      );
    }
  }
  if (options.crossService) {
    tasks.push(task('search_knowledge', 'Search the knowledge base for context.', 'what crawled sources say about it', { query: prompt.slice(0, 300), top_k: 5 }));
    if (BUDGET.test(text) || target.startsWith('llm.')) tasks.push(task('read_budgets', 'Read the model gateway budgets.', 'what thinking costs and what is left', { agent_code: '' }));
    if (CONTENT.test(text)) tasks.push(task('read_content', `Read the contents of site ${options.siteKey}.`, 'what the site shows and what waits to be published', { site_key: options.siteKey, slug: '' }));
  }
  return { target, alsoMatched, tasks };
}
