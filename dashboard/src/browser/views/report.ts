import { drawChart, type Chart } from '../charts.js';
import { fill, h, safeLink } from '../dom.js';
import { percentOf, sentenceCase } from '../format.js';
import { segmentTableView, type SegmentTable } from './segment-table.js';

export interface Report {
  judgment: string;
  /** `model` when the model's judgment passed the grounding check, else `composed` from the findings. */
  judgmentSource?: string;
  findings: { title: string; detail: string; evidence: number[] }[];
  evidence: { kind: string; step: number; summary: string | null; url: string | null; title: string | null; excerpt: string | null }[];
  confidence: number;
  confidenceReason: string;
  charts: Chart[];
  /** Absent from reports stored before the table existed. */
  segmentTables?: SegmentTable[];
}

/**
 * The judgment's answer and what follows it: the engine's answer when the judgment opens with it
 * (a composed judgment, or a model that quoted it), else the first sentence (a sentence ends at
 * `.`, `!` or `?` before a space and a capital, digit or quote; `8.4 %` does not end one).
 */
export function splitAnswer(report: Pick<Report, 'judgment' | 'findings'>): { answer: string; rest: string } {
  const judgment = report.judgment;
  const engine = report.findings.find((f) => f.title === 'The answer')?.detail;
  if (engine && judgment.startsWith(engine)) return { answer: engine, rest: judgment.slice(engine.length).trim() };
  const first = /^[\s\S]*?[.!?](?=\s+[A-Z0-9"“‘'(])/.exec(judgment);
  return first ? { answer: first[0], rest: judgment.slice(first[0].length).trim() } : { answer: judgment, rest: '' };
}

/**
 * The report in two places. At the top of the job, before the proposed actions: the answer to
 * the question (the judgment's first sentence), the waterfall of the change and the confidence,
 * so the answer, why, and what to do fit the first screen. After the actions: the drill-down
 * table of segments, the rest of a model's narrative (a composed one is the findings, listed
 * there), the charts (each sized to its card), the findings and the evidence they cite.
 */
export function renderReport(answer: HTMLElement, details: HTMLElement, report: Report | null, error: string | null): void {
  if (!report) {
    fill(details, h('p', { class: 'muted' }, 'Charts and findings come with the report.'));
    return fill(answer, h('p', { class: 'muted' }, error ?? 'No report.'));
  }
  const waterfall = report.charts.find((c) => c.kind === 'WATERFALL');
  const others = report.charts.filter((c) => c !== waterfall);
  const { answer: lead, rest } = splitAnswer(report);
  fill(answer, h('p', { class: 'judgment' }, sentenceCase(lead)), waterfall ? drawChart(waterfall) : null, h('p', { class: 'confidence' }, `Confidence ${percentOf(report.confidence)}: ${report.confidenceReason}`));
  const evidence = h(
    'ol',
    { class: 'evidence' },
    ...report.evidence.map((e) => h('li', {}, h('span', { class: 'badge' }, e.kind), ' ', e.url && /^https?:/.test(e.url) ? safeLink(e.url, e.title ?? e.url) : (e.title ?? e.url ?? ''), ' ', e.summary ?? e.excerpt ?? '', h('span', { class: 'muted' }, ` (step ${e.step})`))),
  );
  const tables = report.segmentTables ?? [];
  fill(
    details,
    ...tables.map((t) => segmentTableView(t)),
    rest && report.judgmentSource !== 'composed' ? h('div', { class: 'narrative' }, h('h3', {}, 'The rest of the answer'), h('p', {}, rest)) : null,
    others.length ? h('div', { class: 'charts' }, ...others.map((chart) => drawChart(chart))) : null,
    h('h3', {}, 'Findings'),
    h('ul', { class: 'findings' }, ...report.findings.map((f) => h('li', {}, h('strong', {}, f.title), ' ', f.detail, f.evidence.length ? h('span', { class: 'muted' }, ` [evidence ${f.evidence.map((i) => i + 1).join(', ')}]`) : null))),
    h('details', { class: 'evidence-list' }, h('summary', {}, `Evidence (${report.evidence.length})`), evidence),
  );
}
