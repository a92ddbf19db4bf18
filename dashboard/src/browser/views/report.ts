import { drawChart, type Chart } from '../charts.js';
import { fill, h, safeLink } from '../dom.js';
import { percentOf } from '../format.js';

export interface Report {
  judgment: string;
  findings: { title: string; detail: string; evidence: number[] }[];
  evidence: { kind: string; step: number; summary: string | null; url: string | null; title: string | null; excerpt: string | null }[];
  confidence: number;
  confidenceReason: string;
  charts: Chart[];
}

/**
 * The report in two places: its answer (the judgment, the waterfall of the change and its
 * confidence) at the top of the job, before the proposed actions; its charts (each sized to its card), findings and the evidence
 * they cite after them.
 */
export function renderReport(answer: HTMLElement, details: HTMLElement, report: Report | null, error: string | null): void {
  if (!report) {
    fill(details, h('p', { class: 'muted' }, 'Charts and findings come with the report.'));
    return fill(answer, h('p', { class: 'muted' }, error ?? 'No report.'));
  }
  // The waterfall explains the answer, so it stands with it, above the proposed actions.
  const waterfall = report.charts.find((c) => c.kind === 'WATERFALL');
  const others = report.charts.filter((c) => c !== waterfall);
  fill(answer, h('p', { class: 'judgment' }, report.judgment), waterfall ? drawChart(waterfall) : null, h('p', { class: 'confidence' }, `Confidence ${percentOf(report.confidence)}: ${report.confidenceReason}`));
  const evidence = h(
    'ol',
    { class: 'evidence' },
    ...report.evidence.map((e) => h('li', {}, h('span', { class: 'badge' }, e.kind), ' ', e.url && /^https?:/.test(e.url) ? safeLink(e.url, e.title ?? e.url) : (e.title ?? e.url ?? ''), ' ', e.summary ?? e.excerpt ?? '', h('span', { class: 'muted' }, ` (step ${e.step})`))),
  );
  fill(
    details,
    others.length ? h('div', { class: 'charts' }, ...others.map((chart) => drawChart(chart))) : null,
    h('h3', {}, 'Findings'),
    h('ul', { class: 'findings' }, ...report.findings.map((f) => h('li', {}, h('strong', {}, f.title), ' ', f.detail, f.evidence.length ? h('span', { class: 'muted' }, ` [evidence ${f.evidence.map((i) => i + 1).join(', ')}]`) : null))),
    h('details', { class: 'evidence-list' }, h('summary', {}, `Evidence (${report.evidence.length})`), evidence),
  );
}
