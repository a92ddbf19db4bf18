import type { Chart, Finding, ProposedAction, Report, SegmentTable } from '../domain/report.js';
import { ungroundedFigures } from '../domain/report.js';
import { checkedProposals } from '../domain/proposal-check.js';
import { analysisConfidence } from './analysis-confidence.js';
import { analysedOutlook, analysisFindings, analysisProposals, type AnalysedOutlook } from './analysis-findings.js';
import { asksAboutModelBudgets, budgetAnswer, budgetConfidence, budgetProposal, usd, type BudgetReading } from './budget-proposal.js';
import { addEvidence, citeAt, type Composed, type ToolOutcome } from './composed.js';
import { segmentTable } from './segment-table.js';
import { knownTargets, targetNameOf } from './target-name.js';
import { interval95 } from '../engine/elasticity.js';
import { displayed, type Display } from '../engine/display.js';
import { fig } from '../tools/tool.js';

export type { ToolOutcome } from './composed.js';

/**
 * Builds the report from what the tools returned, so every figure in it is copied from a tool
 * result (and checked: a model's judgment that cites a figure no tool produced is replaced by
 * the composed one). Proposed actions follow documented rules over the same results (the
 * engine's findings: analysis-findings.ts), and every one passes domain/proposal-check.ts:
 * - a budget whose month-end projection exceeds its allocation → raise it (BUDGET_CHANGE,
 *   budget-proposal.ts);
 * - a content with a newer draft than its live version, when the question is about content
 *   (and names its page, when it names any) → publish it (CONTENT_PUBLISH);
 * - a knowledge search that found nothing, for a question the engine did not answer from the
 *   metrics, while the tenant has a crawl job that feeds the knowledge base → run it now
 *   (CRAWL_TRIGGER).
 * A model may propose further actions with the `propose_action` tool.
 */


export interface ModelJudgment {
  judgment?: unknown;
  confidence?: unknown;
  confidenceReason?: unknown;
}

/** A number the model wrote, else NaN (its judgment is JSON it produced, unchecked). */
const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
const signed = (v: number) => (v >= 0 ? `+${v}` : String(v));

function metricFindings(c: Composed, o: ToolOutcome<'lookup_metric'>): void {
  const d = o.data;
  for (const s of d.series) {
    const stats = s.stats;
    const labels = s.labels;
    const label = Object.values(labels).join(' ');
    const name = `${d.name}${label ? ` (${label})` : ''}`;
    const points = s.points;
    const from = points[0]?.t ?? '';
    const to = points[points.length - 1]?.t ?? '';
    const e = addEvidence(c, { kind: 'METRIC', step: o.step, metric: d.name, labels, from, to, summary: o.summary });
    const change = stats.weekOverWeekChangePercent ?? Number.NaN;
    const averaged = stats.lastWeekMean !== undefined;
    const detail = Number.isFinite(change)
      ? `Last week ${name} ${averaged ? 'averaged' : 'totalled'} ${averaged ? stats.lastWeekMean : stats.lastWeekTotal} against ${averaged ? stats.previousWeekMean : stats.previousWeekTotal} the week before (${signed(change)}%).`
      : `${name} totalled ${stats.total} from ${from} to ${to} (mean ${stats.mean}, min ${stats.min}, max ${stats.max}).`;
    c.findings.push({ title: Number.isFinite(change) ? `${name} ${change >= 0 ? 'up' : 'down'} ${Math.abs(change)}% week over week` : `${name} over the window`, detail, evidence: [e] });
    c.charts.push({ title: name, step: o.step, kind: 'SERIES', unit: s.unit, history: points.map((p) => ({ t: p.t, value: p.value })) });
  }
}

function forecastFinding(c: Composed, o: ToolOutcome<'forecast_metric'>): void {
  const d = o.data;
  const total = d.total;
  const e = addEvidence(c, { kind: 'FORECAST', step: o.step, metric: d.name, labels: d.labels, horizon: d.horizon, summary: o.summary });
  c.findings.push({
    title: `${d.name} forecast for the next ${d.horizon} days`,
    detail: `Expected ${total.p50} (p10 ${total.p10}, p90 ${total.p90}) against ${d.previousPeriodTotal} in the last ${d.horizon} days.`,
    evidence: [e],
  });
  c.charts.push({
    title: `${d.name} forecast`,
    step: o.step,
    kind: 'FORECAST',
    unit: null,
    history: d.history.map((p) => ({ t: p.t, value: p.value })),
    band: d.forecast.map((p) => ({ t: p.t, p10: p.p10, p50: p.p50, p90: p.p90 })),
  });
}

function simulationFinding(c: Composed, o: ToolOutcome<'simulate_scenario'>, forecastHistory: Chart['history']): void {
  const d = o.data;
  const impact = d.impact;
  const e = addEvidence(c, { kind: 'SIMULATION', step: o.step, metric: d.target, driver: d.driver, changePercent: d.changePercent, horizon: d.horizon, summary: o.summary });
  // What a person reads names the driver as the analysis does: `ad_spend (channel=search)`, not the selector `ad_spend{channel=search}`.
  const driver = d.driver.replace(/\{([^{}]*)\}$/, (_all, pairs: string) => ` (${pairs.split(',').join(', ')})`);
  const ci = interval95(d.elasticity);
  if (d.elasticity.source === 'estimated' && ci.holdsZero) {
    // An effect the history cannot tell from none is not stated, and nothing follows from it.
    c.findings.push({
      title: `No reliable relation between ${driver} and ${d.target}`,
      detail: `The history's estimated elasticity is ${d.elasticity.value}, with a 95 % interval of ${fig(ci.low)} to ${fig(ci.high)}, which holds zero: the effect of ${signed(d.changePercent)}% ${driver} cannot be told from none, so it is not stated and nothing is proposed from it.`,
      evidence: [e],
    });
    return;
  }
  c.findings.push({
    title: `${signed(d.changePercent)}% ${driver} → ${d.target} ${signed(impact.p50)} over ${d.horizon} days`,
    detail: `The simulation (${d.runs} runs, elasticity ${d.elasticity.value} ${d.elasticity.source}) puts the effect between ${signed(impact.p10)} (p10) and ${signed(impact.p90)} (p90), ${signed(d.impactPercent)}% of the ${d.baselineTotal} baseline.`,
    evidence: [e],
  });
  c.charts.push({ title: `What if ${signed(d.changePercent)}% ${driver}`, step: o.step, kind: 'SIMULATION', unit: null, history: forecastHistory, band: d.band.map((p) => ({ t: p.t, p10: p.p10, p50: p.p50, p90: p.p90 })) });
}

/** The knowledge base's findings; with nothing found, a run of a job that feeds it, to propose when the metrics did not answer. */
function knowledgeFinding(c: Composed, o: ToolOutcome<'search_knowledge'>): ProposedAction | undefined {
  const d = o.data;
  const hits = d.hits;
  if (hits.length === 0) {
    c.findings.push({ title: 'No knowledge-base passage matches', detail: o.summary, evidence: [] });
    const finding = citeAt(c, c.findings.length - 1);
    const job = d.crawlJobs?.[0];
    if (job) {
      return {
        kind: 'CRAWL_TRIGGER',
        title: `Run crawl job "${job.jobName}" now`,
        rationale: `The knowledge base had nothing on "${(d.query ?? '').slice(0, 120)}"; a fresh crawl of ${job.targetUrl} may bring sources in.`,
        targetType: 'CrawlJob',
        targetId: job.jobId,
        params: { tenantId: job.tenantId ?? '' },
        expectedImpact: null,
        ...(finding ? { finding } : {}),
      };
    }
    return undefined;
  }
  const ids = hits.slice(0, 3).map((h) => addEvidence(c, { kind: 'KNOWLEDGE', step: o.step, crawlItemId: h.crawlItemId, url: h.url, title: h.title, excerpt: h.excerpt.slice(0, 300) }));
  c.findings.push({ title: `${hits.length} knowledge-base sources`, detail: hits.slice(0, 3).map((h) => `"${h.title}" (${h.url})`).join('; '), evidence: ids });
  return undefined;
}

/** The budgets' findings and proposals; returns whether they last the month, in words (budget-proposal.ts). */
function budgetFindings(c: Composed, o: ToolOutcome<'read_budgets'>): { answer: string; confidence: Report['confidence'] } | undefined {
  const d = o.data;
  const days = d.daysInMonth ?? Number.NaN;
  const readings: BudgetReading[] = [];
  for (const b of d.budgets) {
    const agent = b.agentCode;
    const e = addEvidence(c, { kind: 'BUDGET', step: o.step, agentCode: agent, summary: `${agent}: $${b.currentUsageUsd} of $${b.allocatedUsd}` });
    // A budget the platform sets (this tenant's share of the analysis agent) is no change the tenant's reviewers can approve.
    const platformSet = b.managedBy === 'PLATFORM';
    const setBy = platformSet ? ' The platform sets this budget: ask its operator to change it.' : '';
    c.findings.push({ title: `Agent ${agent} has used ${b.burnRatePercent}% of its budget`, detail: `${usd(b.currentUsageUsd)} of ${usd(b.allocatedUsd)} this month; at this pace ${usd(b.projectedMonthUsd)} by month end.${setBy}`, evidence: [e] });
    const reading = { agentCode: agent, allocatedUsd: b.allocatedUsd, currentUsageUsd: b.currentUsageUsd, projectedMonthUsd: b.projectedMonthUsd, hardLimitEnabled: b.hardLimitEnabled === true };
    readings.push(reading);
    const proposal = platformSet ? undefined : budgetProposal(reading, days, citeAt(c, c.findings.length - 1));
    if (proposal) c.actions.push(proposal);
  }
  const confidence = budgetConfidence(readings, days);
  const answer = budgetAnswer(readings, days);
  return answer && confidence ? { answer, confidence } : undefined;
}

/** The slug as a word of the question (`pricing`, `about-us` as "about us" or "about-us"). */
const names = (prompt: string, slug: string) => new RegExp(`(^|[^a-z0-9])${slug.toLowerCase().replace(/[^a-z0-9]+/g, '[^a-z0-9]?')}($|[^a-z0-9])`).test(prompt.toLowerCase());

function contentFindings(c: Composed, o: ToolOutcome<'read_content'>, contentAsked: boolean, prompt: string): void {
  const d = o.data;
  // A question that names pages is about those; one that names none, about every page.
  const named = d.contents.filter((item) => names(prompt, item.slug));
  for (const item of named.length ? named : d.contents) {
    const published = item.publishedVersion;
    const latest = item.latestVersion;
    if (item.latestVersionStatus !== 'DRAFT' || published === null || latest <= published) continue;
    const e = addEvidence(c, { kind: 'CONTENT', step: o.step, contentId: item.contentId, siteKey: item.siteKey, slug: item.slug, title: item.title });
    c.findings.push({ title: `"${item.slug}" has an unpublished draft`, detail: `Version ${latest} waits while version ${published} is live.`, evidence: [e] });
    const finding = citeAt(c, c.findings.length - 1);
    if (contentAsked) {
      c.actions.push({
        kind: 'CONTENT_PUBLISH',
        title: `Publish draft v${latest} of "${item.slug}"`,
        rationale: `Version ${latest} of "${item.title}" is ready as a draft while version ${published} is live.`,
        targetType: 'Content',
        targetId: item.contentId,
        params: { siteKey: item.siteKey, version: latest },
        expectedImpact: null,
        ...(finding ? { finding } : {}),
      });
    }
  }
}

/**
 * One figure per question: when the engine forecast the subject or estimated the what-if too,
 * the report states the engine's, which its answer quotes. The forecast and simulation tools'
 * findings (their own fits and horizons, other figures) go; their charts stay, the forecast's
 * taking the engine's band.
 */
function oneOutlook(c: Composed, engine: AnalysedOutlook): void {
  const duplicate = (f: Finding) => f.evidence.some((i) => {
    const e = c.evidence[i] as { kind?: string; metric?: string; driver?: string } | undefined;
    if (e?.metric !== engine.name) return false;
    return (e.kind === 'FORECAST' && engine.forecast !== undefined) || (e.kind === 'SIMULATION' && e.driver?.replace(/\{.*\}$/, '') === engine.whatIfLever);
  });
  c.findings = c.findings.filter((f) => !duplicate(f));
  for (const chart of c.charts) {
    if (engine.forecast && chart.kind === 'FORECAST' && chart.title === `${engine.name} forecast`) chart.band = engine.forecast.map((p) => ({ t: p.day, p10: p.p10, p50: p.p50, p90: p.p90 }));
  }
}

/** A proposal's finding where it is now (findings left out since shift the rest); none when it was left out. */
function recited(c: Composed, a: ProposedAction): ProposedAction {
  if (!a.finding) return a;
  const index = c.findings.findIndex((f) => f.title === a.finding!.title && f.detail === a.finding!.detail);
  const { finding, ...rest } = a;
  return index < 0 ? rest : { ...rest, finding: { ...finding, index } };
}

/**
 * What the model proposed through `propose_action` (checked by the tool, and again with the
 * others before it is stored), linked to the finding it names: a finding's title, else the first
 * whose detail holds its words.
 */
function modelProposals(c: Composed, o: ToolOutcome<'propose_action'>): void {
  const { proposal, followsFrom } = o.data;
  const named = followsFrom?.trim().toLowerCase() ?? '';
  const index = named ? c.findings.findIndex((f) => f.title.toLowerCase() === named) : -1;
  const at = index >= 0 ? index : named ? c.findings.findIndex((f) => f.detail.toLowerCase().includes(named)) : -1;
  const finding = at >= 0 ? { index: at, title: c.findings[at]!.title, detail: c.findings[at]!.detail } : undefined;
  c.actions.push({ ...proposal, ...(finding ? { finding } : {}) });
}

/** Without the engine's analysis (a report from the single tools only): grounded in how many kinds of evidence. */
function confidence(c: Composed): Report['confidence'] {
  const kinds = new Set(c.evidence.map((e) => e.kind));
  const value = Math.min(0.9, 0.3 + 0.15 * kinds.size);
  const reason = kinds.size
    ? `Grounded in ${c.evidence.length} pieces of evidence of ${kinds.size} kinds (${[...kinds].join(', ').toLowerCase()}); forecasts and simulations carry their own p10-p90 uncertainty.`
    : 'No tool returned evidence; nothing here is grounded.';
  return { value: Math.round(value * 100) / 100, reason };
}

/**
 * The answer first. With the engine's analysis: its answer and statements (premise, range,
 * start, causes, the rest), then the what-if's simulation. Without it: the asked metric's move,
 * then what a change would do, then where it heads, then the largest driver move.
 */
function composedJudgment(prompt: string, c: Composed, analysed: string | undefined): string {
  const acts = c.actions.length ? ' Actions are proposed for review below.' : '';
  if (analysed !== undefined) return `${analysed}${acts}`;
  if (c.findings.length === 0) return `No data answered "${prompt.slice(0, 200)}".`;
  const kind = (f: Finding) => c.evidence[f.evidence[0] ?? -1]?.kind;
  const metrics = c.findings.filter((f) => kind(f) === 'METRIC');
  const lead = [
    metrics[0],
    c.findings.find((f) => kind(f) === 'SIMULATION'),
    c.findings.find((f) => kind(f) === 'FORECAST'),
    ...metrics.slice(1, 2),
  ].filter((f): f is Finding => f !== undefined);
  return `${(lead.length ? lead : c.findings.slice(0, 3)).map((f) => f.detail).join(' ')}${acts}`;
}

export interface ComposeInput {
  prompt: string;
  outcomes: readonly ToolOutcome[];
  model?: ModelJudgment | undefined;
  /** Whether the question was about content (publish proposals only then). */
  contentAsked: boolean;
}

export function composeReport(input: ComposeInput): { report: Report; actions: ProposedAction[]; ungrounded: string[] } {
  const c: Composed = { findings: [], evidence: [], charts: [], actions: [] };
  const tables: SegmentTable[] = [];
  let history: Chart['history'] = [];
  let analysed: string | undefined;
  let outlook: AnalysedOutlook | undefined;
  let engineConfidence: Report['confidence'] | undefined;
  let engineAnswered = false;
  let budgetsSaid: { answer: string; confidence: Report['confidence'] } | undefined;
  let refill: ProposedAction | undefined;
  for (const o of input.outcomes) {
    switch (o.tool) {
      case 'analyse_change': {
        analysed = analysisFindings(c, o);
        outlook = analysedOutlook(o);
        engineConfidence = analysisConfidence(o.data.finding);
        engineAnswered = o.data.finding.status === 'analysed';
        const table = segmentTable(o);
        if (table) tables.push(table);
        history = c.charts[0]?.history ?? history;
        const none = analysisProposals(c, o);
        if (none) {
          c.findings.push({ title: 'No proposal', detail: none, evidence: [] });
          analysed = `${analysed} ${none}`;
        }
        break;
      }
      case 'lookup_metric': metricFindings(c, o); break;
      case 'forecast_metric': forecastFinding(c, o); history = c.charts[c.charts.length - 1]!.history; break;
      case 'simulate_scenario': simulationFinding(c, o, history); break;
      case 'search_knowledge': refill = knowledgeFinding(c, o) ?? refill; break;
      case 'read_budgets': budgetsSaid = budgetFindings(c, o); break;
      case 'read_content': contentFindings(c, o, input.contentAsked, input.prompt); break;
      case 'propose_action': modelProposals(c, o); break;
      case 'list_metrics': break;
    }
  }
  if (outlook) oneOutlook(c, outlook);
  // An empty knowledge base is a lever only for a question the metrics did not answer: every
  // question searches it, and a crawl proposed on each would be noise.
  if (refill && !engineAnswered) c.actions.push(refill);
  // Every proposal passes the check a model's proposal passes too (domain/proposal-check.ts);
  // one change of a target is proposed once (the first, from the analysis, cites the most).
  const seen = new Set<string>();
  const once = c.actions.filter((a) => !seen.has(`${a.kind}|${a.targetId}`) && !!seen.add(`${a.kind}|${a.targetId}`));
  const { kept, refused } = checkedProposals(once.map((a) => recited(c, a)), c.findings.length);
  const known = knownTargets(input.outcomes);
  c.actions = kept.map((a) => {
    const targetName = targetNameOf(a, known);
    return targetName ? { ...a, targetName } : a;
  });
  for (const why of refused) c.findings.push({ title: 'A proposal was left out', detail: why, evidence: [] });
  // A report that found no lever says so, instead of leaving the reader to wonder.
  if (analysed !== undefined && c.actions.length === 0 && !c.findings.some((f) => f.title === 'No proposal')) {
    const none = 'Nothing is proposed: no finding points at a content version, a budget, a crawl or a declared lever that a change would move.';
    c.findings.push({ title: 'No proposal', detail: none, evidence: [] });
    analysed = `${analysed} ${none}`;
  }
  // A question about the model budgets is answered by them first; the engine's analysis of a
  // metric follows when it measured one (a month with nothing before it to compare is left to
  // the findings).
  // Answered by the budgets alone, the report is as sure as their projection, not as the analysis that measured nothing.
  const budgetsLead = !!budgetsSaid && asksAboutModelBudgets(input.prompt.toLowerCase(), engineAnswered);
  if (budgetsSaid && budgetsLead) analysed = analysed !== undefined && engineAnswered ? `${budgetsSaid.answer} ${analysed}` : budgetsSaid.answer;
  const sources = input.outcomes.map((o) => `${JSON.stringify(o.data)} ${o.summary}`);
  const said = typeof input.model?.judgment === 'string' ? input.model.judgment.trim() : '';
  const ungrounded = said ? ungroundedFigures(said, sources) : [];
  const useModel = said.length >= 20 && ungrounded.length === 0;
  const modelConfidence = num(input.model?.confidence);
  const ownConfidence = (budgetsLead && !engineAnswered ? budgetsSaid?.confidence : undefined) ?? engineConfidence ?? confidence(c);
  const report: Report = {
    judgment: useModel ? said : composedJudgment(input.prompt, c, analysed),
    judgmentSource: useModel ? 'model' : 'composed',
    findings: c.findings,
    evidence: c.evidence,
    confidence:
      useModel && modelConfidence >= 0 && modelConfidence <= 1 && typeof input.model?.confidenceReason === 'string'
        ? { value: modelConfidence, reason: input.model.confidenceReason }
        : ownConfidence,
    charts: c.charts,
    segmentTables: tables,
  };
  const display = input.outcomes.find((o): o is ToolOutcome<'analyse_change'> => o.tool === 'analyse_change')?.data.finding.display;
  return { ...inCatalogWords(report, c.actions, display), ungrounded };
}

/**
 * What a person reads in the catalog's words (engine/display.ts): the judgment, each finding,
 * chart titles and bars, each proposal's title, rationale, target name and summary. What a
 * machine reads (target ids, params' metrics and labels, evidence, tables' labels) keeps the names.
 */
function inCatalogWords(report: Report, actions: ProposedAction[], display: Display | undefined): { report: Report; actions: ProposedAction[] } {
  if (!display) return { report, actions };
  const w = (text: string) => displayed(text, display);
  return {
    report: {
      ...report,
      judgment: w(report.judgment),
      findings: report.findings.map((f) => ({ ...f, title: w(f.title), detail: w(f.detail) })),
      charts: report.charts.map((ch) => ({ ...ch, title: w(ch.title), ...(ch.bars ? { bars: ch.bars.map((b) => ({ ...b, label: displayed(b.label, display, { sentence: false }) })) } : {}) })),
    },
    actions: actions.map((a) => ({
      ...a,
      title: w(a.title),
      rationale: w(a.rationale),
      ...(a.targetName ? { targetName: w(a.targetName) } : {}),
      ...(typeof a.params.summary === 'string' ? { params: { ...a.params, summary: w(a.params.summary) } } : {}),
    })),
  };
}
