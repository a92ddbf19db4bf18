/**
 * The analysis playbook: from the question and the metric catalog, the tool calls worth
 * making, in order. The model executes each task (it fills the tool's arguments itself from
 * the instruction, which spells them out), observes each result, may call more tools, and
 * writes the judgment; the plan makes sure even a small or offline model gathers the
 * evidence a person would: the figures asked about, what drives them, where they are
 * heading, what a proposed change would do, and what the knowledge base says.
 */

import type { CatalogEntry } from '../engine/catalog.js';
import { plan as enginePlan } from '../engine/plan.js';
import { readsModelBudgets } from '../report/budget-proposal.js';

/** The tenant's catalog as the engine reads it (names, units, labels, declared meaning). */
export type CatalogItem = CatalogEntry;

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

const FUTURE = /\b(forecast|predict|projection|project|next|expect|expected|outlook|future|will)\b/;
const PAGE_WORDS = ['content', 'page', 'pages', 'landing', 'pricing', 'headline', 'cta', 'seo', 'website', 'site', 'publish'];
const PAGES = new RegExp(`\\b(${PAGE_WORDS.join('|')})\\b`);
/** The site's contents are read for a question about its pages, and about conversion (which they may move). */
const CONTENT = new RegExp(`\\b(${[...PAGE_WORDS, 'conversion'].join('|')})\\b`);

/**
 * Whether a question is about the site's pages, so that a draft waiting to be published is worth
 * proposing; a question about the conversion rate alone reads the pages but is not about them.
 */
export const asksAboutPages = (prompt: string): boolean => PAGES.test(prompt.toLowerCase());

function horizonDays(text: string): number {
  const explicit = /next\s+(\d{1,3})\s+days?/.exec(text);
  if (explicit) return Math.min(366, Math.max(1, Number(explicit[1])));
  if (/next\s+week/.test(text)) return 7;
  if (/next\s+quarter/.test(text)) return 90;
  if (/next\s+year/.test(text)) return 365;
  return 30;
}

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

/**
 * The plan: the engine's reading of the question decides the subject (exact name, then declared
 * synonym, then words, in the tenant's own catalog) and the what-if lever; nothing here names a
 * metric. The engine's analysis comes first (premise, range, change point, causes, events); a
 * what-if is also simulated (Monte Carlo over the estimated elasticity), a question about the
 * future also forecast, and the platform's own context is read when the router is reachable.
 */
export function planAnalysis(prompt: string, catalog: readonly CatalogItem[], options: PlanOptions): Plan {
  const text = prompt.toLowerCase();
  const tasks: PlannedTask[] = [task('list_metrics', 'See which metrics exist.', 'to know what can be measured', { name: '' })];
  if (catalog.length === 0) return { target: '', alsoMatched: [], tasks };
  const reading = enginePlan(prompt, catalog, options.now);
  const analyse = (what: string) => task('analyse_change', what, 'the answer: premise, expected range, when it started, causes and the unexplained rest', { question: prompt.slice(0, 2000) });
  // A question that names no metric of the catalog gets the engine's own answer: it says so, and what there is.
  if (reading.subject.kind !== 'metric') return { target: '', alsoMatched: [], tasks: [...tasks, analyse('Check the question against the catalog.'), ...contextTasks(prompt, options)] };
  const target = reading.subject.name;
  const alsoMatched = reading.subject.others.map((m) => m.name);
  tasks.push(analyse(`Analyse the question on ${target}.`));
  const lever = reading.reading.whatIf;
  if (lever?.metric && lever.metric !== target) {
    const percent = Math.round(lever.change * 1000) / 10;
    tasks.push(
      task('simulate_scenario', `Simulate ${percent >= 0 ? '+' : ''}${percent}% ${lever.metric}${labelArg(lever.labels) ? ` (${labelArg(lever.labels)})` : ''} and its effect on ${target}.`, 'the question asks what a change would do', {
        target_metric: target,
        target_labels: '',
        driver_metric: lever.metric,
        driver_labels: labelArg(lever.labels),
        change_percent: percent,
        horizon: horizonDays(text),
        seed: 1,
      }),
    );
  }
  if (FUTURE.test(text)) tasks.push(task('forecast_metric', `Forecast ${target}.`, 'the question asks where it is heading', { name: target, labels: '', horizon: horizonDays(text) }));
  return { target, alsoMatched, tasks: [...tasks, ...contextTasks(prompt, options)] };
}

/** The platform's own context, when the router is reachable: the knowledge base, and budgets or contents when the question concerns them. */
function contextTasks(prompt: string, options: PlanOptions): PlannedTask[] {
  if (!options.crossService) return [];
  const text = prompt.toLowerCase();
  return [
    task('search_knowledge', 'Search the knowledge base for context.', 'what crawled sources say about it', { query: prompt.slice(0, 300), top_k: 5 }),
    ...(readsModelBudgets(text) ? [task('read_budgets', 'Read the model gateway budgets.', 'what thinking costs and what is left', { agent_code: '' })] : []),
    ...(CONTENT.test(text) ? [task('read_content', `Read the contents of site ${options.siteKey}.`, 'what the site shows and what waits to be published', { site_key: options.siteKey, slug: '' })] : []),
  ];
}
