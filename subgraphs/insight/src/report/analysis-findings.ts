import type { Unit } from '../engine/catalog.js';
import type { DriverAttribution } from '../engine/driver-attribution.js';
import { coverOf } from '../engine/coverage.js';
import { segmentName } from '../engine/causes.js';
import type { Finding as EngineFinding } from '../engine/finding.js';
import { formatDelta, formatValue } from '../engine/format.js';
import type { Narrative } from '../engine/narrative.js';
import { figuresOf, type Chart } from '../domain/report.js';
import { addEvidence, cite, type Composed, type ToolOutcome } from './composed.js';
import { eventLevers } from './event-proposals.js';

const TITLES: Record<Narrative['statements'][number]['topic'], string> = {
  ranking: 'Ranked',
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

/** Said of a move within the normal range instead of its causes. */
const WITHIN_NORMAL = 'A move within the normal range needs no cause; the findings show what moved with it.';

/** What a question only about the future or a what-if asks for. */
const AHEAD: ReadonlySet<Narrative['statements'][number]['topic']> = new Set(['forecast', 'what-if', 'note']);

/** An event's title as the narrative quotes it. */
const QUOTED = /“[^”]*”/g;

/** The figures and quoted events of a text, the facts a reader checks it by. */
const factsOf = (text: string) => [...figuresOf(text), ...(text.match(QUOTED) ?? [])];

/**
 * Whether a statement tells a reader of the answer (whose facts are `said`) something new: a
 * figure or a quoted event the answer does not have (or nothing that can be checked, so it is
 * kept). The answer's first sentence already gives the expected range, the start and its event
 * and the largest cause; their statements repeat it in full, which belongs in the findings, not
 * twice in the judgment.
 */
function addsTo(said: ReadonlySet<string>, statement: string): boolean {
  const facts = factsOf(statement);
  return facts.length === 0 || facts.some((fact) => !said.has(fact));
}

/**
 * The engine's analysis as report findings (one per statement, in reading order), the subject's
 * chart with the period shaded and events marked, and the waterfall of the change. Returns the
 * judgment: the answer, then the statements that add to it (for a question only about the future
 * or a what-if, or a move within the normal range, only those about what lies ahead).
 */
export function analysisFindings(c: Composed, o: ToolOutcome<'analyse_change'>): string {
  const d = o.data;
  const f = d.finding;
  const metric = f.subject?.name ?? '';
  const period = f.periods?.period;
  const covers = coverOf(f);
  const onlyAhead = covers.asks === 'ahead';
  const e = addEvidence(c, { kind: 'ANALYSIS', step: o.step, metric, from: period?.from ?? '', to: period?.to ?? '', summary: d.answer });
  c.findings.push({ title: 'The answer', detail: d.answer, evidence: [e] });
  // The parts of a move within the normal range are not its causes: there is nothing unusual to explain.
  const normal = covers.move === 'normal';
  for (const s of d.statements) c.findings.push({ title: normal && s.topic === 'cause' ? 'Moved with it' : TITLES[s.topic], detail: s.text, evidence: [e] });
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
    // The waterfall answers "why": a question only about the future or a what-if gets none.
    if (f.premise.observed !== 'flat' && !onlyAhead) c.charts.push({ title: `Why ${metric} moved`, step: o.step, kind: 'WATERFALL', unit, history: [], bars: waterfall(f) });
  }
  // A question only about the future or a what-if is answered by those, and so is a move within
  // the normal range (there is nothing unusual to explain): why it moved stays in the findings.
  const told = d.statements.filter((s) => !(onlyAhead || normal) || AHEAD.has(s.topic)).map((s) => s.text);
  const left = normal && !onlyAhead && d.statements.some((s) => s.topic === 'cause') ? [WITHIN_NORMAL] : [];
  const said = new Set(factsOf(d.answer));
  return [d.answer, ...told.filter((text) => addsTo(said, text)).slice(0, 10), ...left].join(' ');
}

const ESTIMATE = 'elasticity (declared, else a log-log fit of daily history at the driver\'s lag, with a bootstrap p10–p90) applied to the change, over a period like the analysed one';

/**
 * Proposals that follow from the engine's findings, each with its parameters, the finding it
 * comes from, its expected impact p10–p90 and how that was estimated:
 * - a what-if on money in the subject's currency that pays within its interval → an EXTERNAL
 *   hand-off of the change (the platform does not own ad budgets or prices);
 * - a declared driver in money whose fall accounts for a bad move → an EXTERNAL hand-off to
 *   bring it back to its level before;
 * - the platform's own levers behind a bad move (event-proposals.ts): a content version published
 *   when it started or on the page a cause names → restore it or update the draft; a healed
 *   selector → change it back; a failed crawl run → run it again.
 * Returns why nothing was proposed, when nothing was.
 */
export function analysisProposals(c: Composed, o: ToolOutcome<'analyse_change'>): string | undefined {
  const f = o.data.finding;
  if (f.status !== 'analysed' || !f.subject || !f.premise) return undefined;
  const subject = f.subject;
  // The impact's unit: a currency's code, a count's noun, else the unit's kind (a ratio's change is a fraction).
  const unit = subject.unit.kind === 'currency' ? subject.unit.code : subject.unit.kind === 'count' ? (subject.unit.noun ?? 'count') : subject.unit.kind;
  const days = f.periods ? Math.round((Date.parse(f.periods.period.to) - Date.parse(f.periods.period.from)) / 86_400_000) + 1 : 7;
  const before = c.actions.length;
  // This analysis's findings start at its answer.
  const from = Math.max(0, c.findings.map((x) => x.title).lastIndexOf('The answer'));
  const reasons: string[] = [];
  const w = f.whatIf;
  const bad = subject.upIsGood ? f.premise.change < 0 : f.premise.change > 0;
  if (bad && coverOf(f).move !== 'normal') {
    for (const cause of f.causes.filter((x) => x.view === 'driver' && x.metric && Math.sign(x.contribution) === Math.sign(f.premise!.change)).slice(0, 1)) {
      const attribution = f.drivers.find((d) => d.metric === cause.metric);
      if (!attribution || !(attribution.driverAfter > 0) || !(attribution.driverBefore > 0)) continue;
      // The change that brings the driver back to where it was before the period.
      const restore = Math.round((attribution.driverBefore / attribution.driverAfter - 1) * 1000) / 10;
      const interval = cause.interval ?? { p10: cause.contribution, p90: cause.contribution };
      const cost = restoreCost(attribution, subject.unit, -cause.contribution, -Math.max(interval.p10, interval.p90), f.locale);
      if (cost?.pays === false) {
        reasons.push(`Bringing ${cause.metric} back is not proposed: ${cost.text}.`);
        continue;
      }
      c.actions.push({
        kind: 'EXTERNAL',
        title: `Bring ${cause.metric} back to its level before (${restore >= 0 ? '+' : ''}${restore} %)`,
        rationale: `${cause.metric} accounts for ${Math.round(cause.share * 100)} % of the change in ${subject.name}; restoring it should win back about that much${cost ? `; ${cost.text}` : ''}.`,
        targetType: 'External',
        targetId: cause.metric!,
        params: { lever: cause.metric!, change: { metric: cause.metric!, labels: cause.labels ?? {}, changePercent: restore }, summary: `Restore ${cause.metric} (${restore >= 0 ? '+' : ''}${restore} %) to win back about ${formatValue(-cause.contribution, subject.unit, f.locale)} of ${subject.name} over ${days} days${cost ? `; ${cost.text}` : ''}.` },
        expectedImpact: { metric: subject.name, horizon: days, horizonDays: days, p10: -Math.max(interval.p10, interval.p90), p50: -cause.contribution, p90: -Math.min(interval.p10, interval.p90), method: ESTIMATE, ...(unit ? { unit } : {}) },
        finding: cite(c, from, TITLES.cause, cause.name),
      });
    }
  }
  // The platform's own levers behind the move: content versions, crawl runs and healed selectors.
  if (bad && coverOf(f).move !== 'normal') {
    const levers = eventLevers({
      finding: f,
      targets: f.targets,
      ctx: { subject: subject.name, change: f.premise.change, days, unit },
      cite: (cause) => (cause ? cite(c, from, TITLES.cause, cause) : cite(c, from, TITLES.start)),
    });
    c.actions.push(...levers.actions);
    reasons.push(...levers.reasons);
  }
  // The what-if's hand-off last: the levers behind the move answer the question's "why" first.
  if (w?.metric && w.effect && w.cost?.pays) {
    const labels = Object.entries(w.labels).map(([k, x]) => `${k}=${x}`).join(',');
    const lever = `${w.metric}${labels ? `{${labels}}` : ''}`;
    // What a person reads names the lever as the report does everywhere: `ad_spend (channel=search)`.
    const leverWords = `${w.metric}${labels ? ` (${segmentName(w.labels)})` : ''}`;
    const percent = Math.round(w.change * 1000) / 10;
    c.actions.push({
      kind: 'EXTERNAL',
      title: `${percent >= 0 ? 'Raise' : 'Cut'} ${leverWords} by ${Math.abs(percent)} %`,
      rationale: `${w.text}: it pays within the interval (each unit ${w.cost.increment >= 0 ? 'spent brings back' : 'saved costs'} ${w.cost.return.p10.toFixed(2)}–${w.cost.return.p90.toFixed(2)}, at an ${w.effect.source} elasticity of ${w.effect.elasticity.toFixed(2)}, p10–p90 ${w.effect.elasticityInterval.p10.toFixed(2)}–${w.effect.elasticityInterval.p90.toFixed(2)}).`,
      targetType: 'External',
      targetId: lever,
      params: { lever, change: { metric: w.metric, labels: w.labels, changePercent: percent }, summary: `${percent >= 0 ? 'Raise' : 'Cut'} ${leverWords} by ${Math.abs(percent)} %; expected ${subject.name} ${formatDelta(w.effect.p50, f.subject!.unit, f.locale)} over ${days} days.` },
      expectedImpact: { metric: subject.name, horizon: days, horizonDays: days, p10: w.effect.p10, p50: w.effect.p50, p90: w.effect.p90, method: ESTIMATE, ...(unit ? { unit } : {}) },
      finding: cite(c, from, TITLES['what-if']),
    });
  }
  if (c.actions.length > before) return undefined;
  if (w?.cost && !w.cost.pays) reasons.unshift(`No change to ${w.metric} is proposed: it does not pay within the interval.`);
  return reasons.length ? reasons.join(' ') : undefined;
}

/**
 * What bringing a money driver back costs: the extra spend over a period like the analysed one
 * (its value before minus after). In the subject's own currency it pays when even the p10
 * win-back exceeds it; in another unit the cost per unit won back is stated, without a verdict.
 */
function restoreCost(d: DriverAttribution, subject: Unit, winBack: number, winBackP10: number, locale: string): { text: string; pays?: boolean } | undefined {
  if (d.unit?.kind !== 'currency' || !d.additive) return undefined;
  const spend = d.driverBefore - d.driverAfter;
  if (!(spend > 0)) return undefined;
  const money = formatValue(spend, d.unit, locale);
  if (subject.kind === 'currency' && subject.code === d.unit.code) {
    const pays = winBackP10 > spend;
    return { pays, text: `it costs about ${money} more over the period for about ${formatValue(winBack, subject, locale)} back (${(winBack / spend).toFixed(2)} per unit spent, at least ${(winBackP10 / spend).toFixed(2)} at p10), so it ${pays ? 'pays' : 'does not pay'} within the interval` };
  }
  return { text: `it costs about ${money} more over the period, about ${formatValue(spend / winBack, d.unit, locale)} per ${subject.kind === 'count' && subject.noun ? subject.noun.replace(/s$/, '') : 'unit'} won back` };
}

/** What the engine said about the analysed subject's future: its forecast, and the lever of a what-if it estimated. */
export interface AnalysedOutlook {
  name: string;
  forecast?: { day: string; p10: number; p50: number; p90: number }[];
  whatIfLever?: string;
}

export function analysedOutlook(o: ToolOutcome<'analyse_change'>): AnalysedOutlook | undefined {
  const f = o.data.finding;
  if (!f.subject) return undefined;
  return {
    name: f.subject.name,
    ...(f.forecast ? { forecast: f.forecast.points } : {}),
    ...(f.whatIf?.effect && f.whatIf.metric ? { whatIfLever: f.whatIf.metric } : {}),
  };
}
