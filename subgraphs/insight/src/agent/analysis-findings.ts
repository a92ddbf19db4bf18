import type { Finding as EngineFinding } from '../engine/finding.js';
import { formatDelta, formatValue } from '../engine/format.js';
import type { Narrative } from '../engine/narrative.js';
import type { Chart } from '../domain/report.js';
import { addEvidence, type Composed, type ToolOutcome } from './composed.js';

interface AnalysisData extends Narrative {
  finding: EngineFinding;
  history: Chart['history'];
}

const TITLES: Record<Narrative['statements'][number]['topic'], string> = {
  range: 'How unusual it is',
  start: 'When it started',
  cause: 'A cause',
  remainder: 'What nothing explains',
  candidate: 'Moved at the same time',
  forecast: 'Where it is heading',
  'what-if': 'What the change would do',
  note: 'Note',
};

/** The waterfall: the comparison value, each cause of the primary view, the rest, the period's value. */
function waterfall(f: EngineFinding): Chart['bars'] {
  const p = f.premise!;
  const unit = f.subject!.unit;
  const primary = f.causes.filter((c) => c.view === f.primaryView);
  return [
    { label: 'before', value: p.comparison, kind: 'start', text: formatValue(p.comparison, unit, f.locale) },
    ...primary.map((c) => ({ label: c.name, value: c.contribution, kind: 'cause' as const, text: formatDelta(c.contribution, unit, f.locale) })),
    { label: 'unexplained', value: f.remainder.value, kind: 'remainder', text: formatDelta(f.remainder.value, unit, f.locale) },
    { label: 'now', value: p.actual, kind: 'end', text: formatValue(p.actual, unit, f.locale) },
  ];
}

/**
 * The engine's analysis as report findings (one per statement, in reading order), the subject's
 * chart with the period shaded and events marked, and the waterfall of the change. Returns the
 * answer and statements that lead the judgment.
 */
export function analysisFindings(c: Composed, o: ToolOutcome): string {
  const d = o.data as AnalysisData;
  const f = d.finding;
  const metric = f.subject?.name ?? '';
  const period = f.periods?.period;
  const e = addEvidence(c, { kind: 'ANALYSIS', step: o.step, metric, from: period?.from ?? '', to: period?.to ?? '', summary: d.answer });
  c.findings.push({ title: 'The answer', detail: d.answer, evidence: [e] });
  for (const s of d.statements) c.findings.push({ title: TITLES[s.topic], detail: s.text, evidence: [e] });
  if (f.status === 'analysed' && f.subject && f.premise) {
    const unit = f.subject.unit.kind === 'currency' ? f.subject.unit.code : f.subject.unit.kind === 'count' ? (f.subject.unit.noun ?? null) : f.subject.unit.kind;
    c.charts.push({
      title: `${metric}${period ? `, ${period.from} to ${period.to} shaded` : ''}`,
      step: o.step,
      kind: 'SERIES',
      unit,
      history: d.history,
      ...(period ? { period: { from: period.from, to: period.to } } : {}),
      markers: f.events.map((a) => ({ t: typeof a.event.at === 'number' ? new Date(a.event.at).toISOString().slice(0, 10) : String(a.event.at).slice(0, 10), label: a.event.title })),
    });
    if (f.premise.observed !== 'flat') c.charts.push({ title: `Why ${metric} moved`, step: o.step, kind: 'WATERFALL', unit, history: [], bars: waterfall(f) });
  }
  return [d.answer, ...d.statements.slice(0, 6).map((s) => s.text)].join(' ');
}
