/**
 * The orchestrating pure function: a question, the tenant's catalog, the series the caller
 * fetched (see `plan`), the tenant's events and the time → a Finding. Every stage is one of the
 * engine's modules; nothing here names a metric.
 */
import { additiveLeaves, aggregate, dailyValues, dayRows, ratioScale, sumOver } from './aggregate.js';
import { expectedBand, type Combine } from './band.js';
import { findCandidates } from './candidates.js';
import { catalogOf, declaredRelatives, factorsOf, isAdditive, ratioParts, withDefaults, type CatalogEntry, type MetricDef } from './catalog.js';
import { scopedSeries, scopeText } from './scope.js';
import { rankCauses, segmentName } from './causes.js';
import { changeStart } from './change-point.js';
import { coverageOf, type Coverage } from './coverage.js';
import { addDays, daysBetween } from './days.js';
import { attributeDriver, declaredElasticity, estimateLaggedElasticity, isReliable, unreliableWords, type DriverAttribution } from './driver-attribution.js';
import { alignEvents, type EngineEvent } from './events.js';
import type { Finding, RootChain } from './finding.js';
import { productAttribution, ratioAttribution, sumAttribution, type FormulaAttribution } from './formula-attribution.js';
import type { SegmentLeaf } from './leaf-table.js';
import { forecastAhead, whatIfEffect, whatIfThrough } from './outlook.js';
import { choosePeriods, type Period, type PeriodChoice } from './periods.js';
import { questionSubject } from './plan.js';
import { judgePremise } from './premise.js';
import { rankParts } from './ranking.js';
import { remainderOf } from './remainder.js';
import { attributeSegments, type SegmentAttribution } from './segment-attribution.js';
import { SeriesBook, type SeriesData } from './series.js';
import { DEFAULT_LOCALE } from './format.js';
import { displayOf } from './display.js';

export interface AnalysisInput {
  question: string;
  catalog: readonly CatalogEntry[];
  /** Daily series as requested by `plan` (extra series are ignored, missing ones skip their stage with a note). */
  series: readonly SeriesData[];
  events?: readonly EngineEvent[];
  now: number | Date;
  /** For the sentences; default `en-US`. */
  locale?: string;
  /** Seed of the bootstrap; default 1. */
  seed?: number;
  /** The periods compared, when the caller chose them first (`periodsFor`) to read the leaves for them. */
  periods?: PeriodChoice;
  /** Metrics whose leaves the caller did not read (a configured limit): the answer says their labels were not examined. */
  leavesLeftOut?: readonly string[];
}

/**
 * The periods an analysis of `question` compares, chosen from the totals alone (the series `plan`
 * asks for as `total`), so that the leaves can then be read for those days only. `analyse`,
 * given them, compares exactly these.
 */
export function periodsFor(input: Pick<AnalysisInput, 'question' | 'series' | 'now'>): PeriodChoice {
  return periodsOver(input.question, new SeriesBook(input.series), typeof input.now === 'number' ? input.now : input.now.getTime());
}

function periodsOver(question: string, book: SeriesBook, now: number): PeriodChoice {
  const span = book.span();
  return choosePeriods(question, { now, ...(span.last ? { lastDataDay: span.last } : {}), ...(span.first ? { firstDataDay: span.first } : {}) });
}

/** Days of the subject's history a finding carries for the report's chart. */
export const CHART_DAYS = 120;

/** Other metrics searched for candidates (each costs a change-point detection, a few ms). */
export const MAX_CANDIDATES = 200;

/** A model stage that fails (a series the models cannot fit) is skipped with a note, never the whole analysis. */
function guarded<T>(notes: string[], what: string, run: () => T | undefined): T | undefined {
  try {
    return run();
  } catch (error) {
    notes.push(`${what} was skipped: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

function combineOf(def: MetricDef): Combine {
  return def.aggregation === 'sum' ? 'sum' : def.aggregation === 'last' ? 'last' : 'mean';
}

function shift(p: Period, days: number): Period {
  return { from: addDays(p.from, -days), to: addDays(p.to, -days), kind: p.kind };
}

function defOf(defs: Map<string, MetricDef>, name: string): MetricDef {
  return defs.get(name) ?? withDefaults({ name });
}

function formulaView(def: MetricDef, defs: Map<string, MetricDef>, book: SeriesBook, period: Period, comparison: Period, subject: { before: number; after: number }, notes: string[]): Finding['formula'] {
  const parts = ratioParts(def.aggregation);
  if (parts) {
    const n0 = aggregate(defOf(defs, parts.numerator), comparison, book);
    const n1 = aggregate(defOf(defs, parts.numerator), period, book);
    const d0 = aggregate(defOf(defs, parts.denominator), comparison, book);
    const d1 = aggregate(defOf(defs, parts.denominator), period, book);
    if (n0 && n1 && d0 && d1 && n0.value > 0 && n1.value > 0 && d0.value > 0 && d1.value > 0 && subject.before > 0 && subject.after > 0) {
      return { kind: 'ratio', ...ratioAttribution({ name: parts.numerator, before: n0.value, after: n1.value }, { name: parts.denominator, before: d0.value, after: d1.value }, subject) };
    }
    notes.push(`the ratio's parts ${parts.numerator} and ${parts.denominator} are missing or not positive, so the ratio was not split`);
    return undefined;
  }
  if (!def.formula) return undefined;
  const kind = 'product' in def.formula ? 'product' : 'sum';
  const names = factorsOf(def.formula);
  const values = names.map((name) => ({ name, before: aggregate(defOf(defs, name), comparison, book)?.value, after: aggregate(defOf(defs, name), period, book)?.value }));
  const missing = values.filter((v) => v.before === undefined || v.after === undefined).map((v) => v.name);
  if (missing.length) {
    notes.push(`the formula's factors ${missing.join(', ')} have no data for the periods, so the formula was not applied`);
    return undefined;
  }
  const parts2 = values as { name: string; before: number; after: number }[];
  if (kind === 'product' && (parts2.some((p) => !(p.before > 0 && p.after > 0)) || !(subject.before > 0 && subject.after > 0))) {
    notes.push('a product formula needs positive values; some were not, so it was not applied');
    return undefined;
  }
  const result: FormulaAttribution = kind === 'product' ? productAttribution(parts2, subject) : sumAttribution(parts2, subject);
  return { kind, ...result };
}

/** A driver must explain at least this share of its factor's move for the chain to go through it. */
const CHAIN_MIN_SHARE = 0.5;

/**
 * The chain one level down: the factor of the formula with the largest contribution in the
 * direction of the move, then, among that factor's declared drivers, the one that explains the
 * most of the factor's own move (at least half, same direction), with the day its own move
 * started (change-point detection on its lagged daily series).
 */
function rootChain(formula: NonNullable<Finding['formula']>, change: number, defs: Map<string, MetricDef>, book: SeriesBook, period: Period, comparison: Period, seed: number, notes: string[]): RootChain | undefined {
  const top = [...formula.contributions].filter((c) => Math.sign(c.contribution) === Math.sign(change)).sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution))[0];
  const factorDef = top ? defs.get(top.name) : undefined;
  if (!top || !factorDef?.drivers.length) return undefined;
  const f0 = aggregate(factorDef, comparison, book);
  const f1 = aggregate(factorDef, period, book);
  if (!f0 || !f1 || f1.value === f0.value) return undefined;
  const own: string[] = [];
  const drivers = driverView(factorDef, defs, book, period, comparison, { before: f0.value, after: f1.value }, seed, own);
  notes.push(...own.map((n) => `for ${top.name}, ${n}`));
  const best = drivers.filter((d) => d.share >= CHAIN_MIN_SHARE).sort((a, b) => b.share - a.share)[0];
  if (!best) return undefined;
  const driverDaily = book.filtered(best.metric, best.labels, isAdditive(defOf(defs, best.metric)));
  const rows = driverDaily ? dayRows(driverDaily) : [];
  const lagged = shift(period, best.lagDays);
  const direction = best.driverAfter < best.driverBefore ? 'down' : 'up';
  const started = rows.length ? guarded(notes, `change-point detection on ${best.metric}`, () => changeStart(rows, addDays(lagged.from, -14), lagged.to, direction)) : undefined;
  const part = Object.keys(best.labels).length === 0 && isAdditive(defOf(defs, best.metric)) ? chainPart(book, best.metric, best.driverAfter - best.driverBefore, lagged, shift(comparison, best.lagDays), notes) : undefined;
  return {
    factor: { name: top.name, before: f0.value, after: f1.value, contribution: top.contribution, share: top.share },
    driver: { metric: best.metric, labels: best.labels, lagDays: best.lagDays, before: best.driverBefore, after: best.driverAfter, elasticity: best.elasticity.value, source: best.elasticity.source, shareOfFactor: best.share, ...(started ? { startedOn: started.day } : {}) },
    ...(part ? { part } : {}),
  };
}

/**
 * The third link: the label value of an additive driver declared as a whole whose own move
 * carries the most of the driver's (at least {@link CHAIN_MIN_SHARE}, same direction), over the
 * lagged periods, with the day its move started.
 */
function chainPart(book: SeriesBook, metric: string, driverMove: number, period: Period, comparison: Period, notes: string[]): RootChain['part'] {
  if (driverMove === 0) return undefined;
  const best = book.labelParts(metric)
    .map((p) => ({ ...p, before: sumOver(p.daily, comparison).sum, after: sumOver(p.daily, period).sum }))
    .map((p) => ({ ...p, share: (p.after - p.before) / driverMove }))
    .filter((p) => p.share >= CHAIN_MIN_SHARE)
    .sort((a, b) => b.share - a.share)[0];
  if (!best) return undefined;
  const started = guarded(notes, `change-point detection on ${metric} (${segmentName(best.labels)})`, () => changeStart(dayRows(best.daily), addDays(period.from, -14), period.to, driverMove < 0 ? 'down' : 'up'));
  return { labels: best.labels, before: best.before, after: best.after, shareOfDriver: Math.min(best.share, 1), ...(started ? { startedOn: started.day } : {}) };
}

function driverView(def: MetricDef, defs: Map<string, MetricDef>, book: SeriesBook, period: Period, comparison: Period, subject: { before: number; after: number }, seed: number, notes: string[]): DriverAttribution[] {
  const out: DriverAttribution[] = [];
  const subjectDaily = new Map(dailyValues(def, book).map((p) => [p.day, p.value]));
  for (const spec of def.drivers) {
    const lag = spec.lagDays ?? 0;
    const driverDef = defOf(defs, spec.metric);
    const filter = spec.labels ?? {};
    const d0 = aggregate(driverDef, shift(comparison, lag), book, filter);
    const d1 = aggregate(driverDef, shift(period, lag), book, filter);
    const driverDaily = book.filtered(spec.metric, filter, isAdditive(driverDef));
    if (!d0 || !d1 || !driverDaily || !(d0.value > 0 && d1.value > 0) || !(subject.before > 0 && subject.after > 0)) {
      notes.push(`driver ${spec.metric} has no positive data for the lagged periods, so it was not attributed`);
      continue;
    }
    let elasticity = spec.elasticity !== undefined ? declaredElasticity(spec.elasticity) : estimateLaggedElasticity(subjectDaily, driverDaily, lag, period.from, seed);
    if (spec.elasticity === undefined && (!elasticity || !isReliable(elasticity))) {
      // History alone did not identify the effect (too little of it, or a driver that barely moved): the period's own move is the experiment.
      const withPeriod = estimateLaggedElasticity(subjectDaily, driverDaily, lag, addDays(period.to, 1), seed);
      if (withPeriod) {
        notes.push(`driver ${spec.metric}: the history before the period did not identify an elasticity, so it was estimated including the period`);
        elasticity = withPeriod;
      }
    }
    if (!elasticity) {
      notes.push(`driver ${spec.metric}: too little history (under 20 week-over-week pairs) to estimate an elasticity`);
      continue;
    }
    if (!isReliable(elasticity)) {
      notes.push(`driver ${spec.metric}: no reliable relation with ${def.name} in the history (${unreliableWords(elasticity)}), so it was not attributed`);
      continue;
    }
    out.push({ ...attributeDriver({ metric: spec.metric, labels: filter, lagDays: lag, elasticity, subjectBefore: subject.before, subjectAfter: subject.after, driverBefore: d0.value, driverAfter: d1.value }), unit: driverDef.unit, additive: isAdditive(driverDef) });
  }
  return out;
}

function segmentView(def: MetricDef, book: SeriesBook, period: Period, comparison: Period, notes: string[]): SegmentAttribution | undefined {
  const pairs = additiveLeaves(def, book);
  if (!pairs) {
    if (book.leaves(def.name).length) notes.push(`${def.name} aggregates by ${String(def.aggregation)}, which does not add up over labels, so segments were not attributed`);
    return undefined;
  }
  const leaves: SegmentLeaf[] = pairs.map(({ leaf, denominator: d }) => ({
    labels: leaf.labels,
    before: leaf.sumBetween(comparison.from, comparison.to),
    after: leaf.sumBetween(period.from, period.to),
    ...(d ? { denominatorBefore: d.sumBetween(comparison.from, comparison.to), denominatorAfter: d.sumBetween(period.from, period.to) } : {}),
  }));
  if (leaves.length < 2) return undefined;
  return attributeSegments(leaves, { scale: ratioParts(def.aggregation) ? ratioScale(def) : 1 });
}

/** Runs the whole analysis. Pure apart from the WebAssembly models it loads once. */
export function analyse(input: AnalysisInput): Finding {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const seed = input.seed ?? 1;
  const now = typeof input.now === 'number' ? input.now : input.now.getTime();
  const defs = catalogOf(input.catalog);
  let book = new SeriesBook(input.series);
  const display = displayOf(defs.values());
  const { reading, subject, scope } = questionSubject(input.question, defs, (metric) => book.labelValues(metric));
  const base = {
    question: input.question,
    covers: { asks: 'nothing' } as Coverage,
    intents: reading.intents,
    ...(reading.perDay ? { perDay: true } : {}),
    ...(reading.claimed ? { claimed: reading.claimed, claimWord: reading.claimWord! } : {}),
    drivers: [],
    causes: [],
    events: [],
    candidates: [],
    locale,
    ...(display ? { display } : {}),
  };
  if (subject.kind === 'unknown') {
    return { ...base, status: 'unknown-metric', available: subject.available, ...(subject.asked ? { asked: subject.asked } : {}), closest: subject.closest, remainder: remainderOf(0, []), notes: ['no metric of the catalog matches the question; nothing was analysed'] };
  }
  let def = defs.get(subject.name)!;
  const notes: string[] = [];
  if (def.defaulted.length) notes.push(`${def.name}: ${def.defaulted.join(', ')} not declared, defaults used`);
  // A question about part of the metric ("mobile bookings"): the analysis runs on that part.
  if (Object.keys(scope).length) {
    book = new SeriesBook(scopedSeries(input.series, def, scope));
    notes.push(`the question names ${scopeText(scope)}: ${def.name} was analysed for that part only`);
    if (def.formula) {
      notes.push(`${def.name}'s formula relates whole metrics, so it was not applied to ${scopeText(scope)}`);
      const { formula: _whole, ...rest } = def;
      def = rest;
    }
  }
  const info = { name: def.name, ...(Object.keys(scope).length ? { scope } : {}), how: subject.how, others: subject.others.map((o) => o.name), unit: def.unit, aggregation: def.aggregation, upIsGood: def.upIsGood, defaulted: def.defaulted };
  if (subject.others.length) notes.push(`the question also matched ${info.others.join(', ')}; ${def.name} was taken (${subject.how} match)`);
  const periods = input.periods ?? periodsOver(input.question, book, now);
  notes.push(periods.reading);
  const actual = aggregate(def, periods.period, book);
  const before = aggregate(def, periods.comparison, book);
  const daily = dailyValues(def, book);
  // The report's chart: the subject's last days (a ratio day by day from its parts; a part's own for a scope).
  const history = daily.slice(-CHART_DAYS).map((d) => ({ t: d.day, value: d.value }));
  if (!actual || !before) {
    return { ...base, status: 'no-data', missing: actual ? 'comparison' : 'period', subject: info, periods, history, remainder: remainderOf(0, []), notes: [...notes, `${def.name} has no data for ${actual ? 'the comparison period' : 'the period asked about'}`] };
  }
  // The direction of the move does not depend on the expected range; when the move started decides which history that range comes from.
  const { observed } = judgePremise({ actual: actual.value, comparison: before.value });
  const cpFrom = daysBetween(periods.comparison.to, periods.period.from) === 1 ? periods.comparison.from : addDays(periods.period.from, -7);
  const changePoint = guarded(notes, 'change-point detection', () => changeStart(daily, cpFrom < addDays(periods.period.from, -35) ? addDays(periods.period.from, -35) : cpFrom, periods.period.to, observed === 'flat' ? undefined : observed));
  // A move that started before the period would otherwise be part of the history the range is
  // predicted from (a fall two days before the week makes a lower week look expected): the range
  // is then what the history before the move predicted.
  const startedBefore = changePoint && changePoint.day < periods.period.from ? changePoint.day : undefined;
  if (startedBefore) notes.push(`the change started on ${startedBefore}, before the period: the expected range comes from the history before that day`);
  const noted = notes.length;
  const predicted = guarded(notes, 'the expected range', () => expectedBand(startedBefore ? daily.filter((p) => p.day < startedBefore) : daily, periods.period, combineOf(def)));
  const band = predicted && startedBefore ? { ...predicted, historyBefore: startedBefore } : predicted;
  if (!band && notes.length === noted) notes.push('under two weeks of history before the period: no expected range');
  const yearBefore = periods.yearBefore ? aggregate(def, periods.yearBefore, book) : undefined;
  const premise = judgePremise({ actual: actual.value, comparison: before.value, ...(reading.claimed ? { claimed: reading.claimed } : {}), ...(band ? { band } : {}), ...(yearBefore ? { yearBefore: yearBefore.value } : {}) });
  const values = { before: before.value, after: actual.value };
  const formula = formulaView(def, defs, book, periods.period, periods.comparison, values, notes);
  const drivers = driverView(def, defs, book, periods.period, periods.comparison, values, seed, notes);
  const segments = segmentView(def, book, periods.period, periods.comparison, notes);
  const ranked = rankCauses(premise.change, { ...(formula ? { formula } : {}), drivers, ...(segments ? { segments } : {}) });
  // A move inside its expected range needs no root: the chain is followed for an unusual move only.
  const unusual = premise.observed !== 'flat' && premise.position !== 'inside';
  const chain = formula && unusual ? rootChain(formula, premise.change, defs, book, periods.period, periods.comparison, seed, notes) : undefined;
  // The largest cause a driver declared as a whole: on to the label value that moved it.
  const topDriver = unusual && ranked.causes[0]?.view === 'driver' ? drivers.find((x) => x.metric === ranked.causes[0]!.metric && !Object.keys(x.labels).length && x.additive) : undefined;
  const driverPart = topDriver
    ? chainPart(book, topDriver.metric, topDriver.driverAfter - topDriver.driverBefore, shift(periods.period, topDriver.lagDays), shift(periods.comparison, topDriver.lagDays), notes)
    : undefined;
  // Every metric the catalog's declarations connect to the subject (its factors and drivers, what
  // it is a factor, driver or ratio part of, and so on): declared relations, reported as such,
  // not candidates that "moved at the same time".
  const related = declaredRelatives(def.name, defs);
  const unrelated = [...defs.values()].filter((d) => !related.has(d.name) && (book.has(d.name) || ratioParts(d.aggregation)));
  if (unrelated.length > MAX_CANDIDATES) notes.push(`only the first ${MAX_CANDIDATES} of ${unrelated.length} other metrics were searched for candidates`);
  const totals = unrelated.slice(0, MAX_CANDIDATES).map((d) => ({ name: d.name, daily: dailyValues(d, book) }));
  // Their label values too (read as parts where the data is): one traffic source can fall with the subject while its metric's total barely moves.
  const parts = unrelated.flatMap((d) => book.labelParts(d.name).map((p) => ({ name: d.name, labels: p.labels, daily: dayRows(p.daily) })));
  const others = [...totals, ...parts].filter((o) => o.daily.length > 0);
  const candidates = guarded(notes, 'the search for candidates', () => findCandidates(daily, changePoint, others, periods.period.from, periods.period.to, seed)) ?? [];
  const timed = (input.events ?? []).filter((e) => Number.isFinite(typeof e.at === 'number' ? e.at : Date.parse(e.at)));
  if (timed.length < (input.events ?? []).length) notes.push(`${(input.events ?? []).length - timed.length} event(s) without a valid time were left out`);
  const events = alignEvents(timed, [...(changePoint ? [changePoint.day] : [])]);
  const fc = reading.intents.includes('forecast') ? guarded(notes, 'the forecast', () => forecastAhead(daily, combineOf(def), reading.horizonDays)) : undefined;
  const w = reading.whatIf;
  const leverDaily = w?.metric ? book.filtered(w.metric, w.labels) : undefined;
  const leverDef = w?.metric && defs.get(w.metric) ? { def: defs.get(w.metric)!, from: periods.period.from } : undefined;
  // A lever that is not the subject's own driver but drives one of its formula's factors is carried through that factor.
  const viaFactor = w?.metric && !def.drivers.some((d) => d.metric === w.metric) && def.formula
    ? factorsOf(def.formula).map((name) => defs.get(name)).find((fd) => fd?.drivers.some((d) => d.metric === w.metric))
    : undefined;
  const factorValue = viaFactor ? aggregate(viaFactor, periods.period, book)?.value : undefined;
  const whatIf = !w
    ? undefined
    : viaFactor && factorValue !== undefined
      ? whatIfThrough(w, def, actual.value, { def: viaFactor, value: factorValue, daily: new Map(dailyValues(viaFactor, book).map((p) => [p.day, p.value])), kind: def.formula && 'product' in def.formula ? 'product' : 'sum' }, leverDaily, periods.period.to, seed, leverDef)
      : whatIfEffect(w, def, actual.value, new Map(daily.map((p) => [p.day, p.value])), leverDaily, periods.period.to, seed, leverDef);
  const order = reading.rankOrder === 'best' ? (def.upIsGood ? 'most' : 'least') : reading.rankOrder === 'worst' ? (def.upIsGood ? 'least' : 'most') : reading.rankOrder;
  const ranking = order ? rankParts(def, book, periods.period, periods.comparison, reading.subjectText, order, scope) : undefined;
  if (order && !ranking) notes.push(`${def.name} has no label with two or more values to rank${isAdditive(def) || ratioParts(def.aggregation) ? '' : ' (and it does not add up over labels)'}`);
  return {
    ...base,
    status: 'analysed',
    covers: coverageOf({ status: 'analysed', intents: reading.intents, claimed: reading.claimed, premise }),
    subject: info,
    periods,
    history,
    premise,
    ...(changePoint ? { changePoint } : {}),
    ...(formula ? { formula } : {}),
    drivers,
    ...(chain ? { chain } : {}),
    ...(driverPart && topDriver ? { driverPart: { metric: topDriver.metric, ...driverPart } } : {}),
    ...(segments ? { segments } : {}),
    ...ranked,
    events,
    candidates,
    ...(fc ? { forecast: fc } : {}),
    ...(whatIf ? { whatIf } : {}),
    ...(ranking ? { ranking } : {}),
    notes,
    ...(input.leavesLeftOut?.length ? { leavesLeftOut: [...input.leavesLeftOut] } : {}),
  };
}
