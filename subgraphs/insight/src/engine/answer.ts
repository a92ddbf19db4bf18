/**
 * The judgment's first sentence: it answers the question that was asked. A question about which
 * part comes first is answered with the ranking, then the whole's move; a false premise is
 * said first, with the figures; a move inside the expected range is called normal; an unknown
 * metric is said to be unknown, with what the catalog has; otherwise the move, how unusual it
 * is, when it started (and the event that day), the largest cause with its share and, when that
 * cause is a factor or a driver, the segment the change is concentrated in.
 */
import { coverOf } from './coverage.js';
import { isRatioUnit } from './catalog.js';
import type { Cause, DriverPart, Finding, RootChain } from './finding.js';
import { subjectName } from './scope.js';
import { DEFAULT_LOCALE, formatChange, formatDay, formatDelta, formatPeriod, formatShare, formatValue, possessive } from './format.js';
import { segmentName } from './causes.js';
import { displayed } from './display.js';
import { daysBetween } from './days.js';
import { isYearBefore, type Period } from './periods.js';

const LISTED = 12;

/** The comparison period in words: "the week before", "the same week a year before (Mon 17 – Sun 23 Nov 2025)", "September 2026". */
/** A further cause through the labels is named in the first sentence beside the largest when it holds at least this share of the change. */
export const TOGETHER_SHARE = 0.1;

export function comparisonWords(p: Period, c: Period, locale: string): string {
  if (isYearBefore(p, c) && p.kind !== 'month') {
    const what = p.kind === 'iso-week' ? 'week' : p.kind === 'day' ? 'day' : 'days';
    return `the same ${what} a year before (${formatPeriod(c, locale)} ${c.to.slice(0, 4)})`;
  }
  if (p.kind === 'iso-week' && c.kind === 'iso-week') return 'the week before';
  if (p.kind === 'day' && c.kind === 'day') return `the same day a week before (${formatDay(c.from, locale)})`;
  return formatPeriod(c, locale);
}

function periodWords(p: Period, locale: string): string {
  return p.kind === 'month' ? `in ${formatPeriod(p, locale)}` : p.kind === 'day' ? `on ${formatPeriod(p, locale)}` : `over ${formatPeriod(p, locale)}`;
}

/** For a question that asks which part comes first: the first three parts, ranked, with their values. */
function rankingSentence(f: Finding): string | undefined {
  if (!f.ranking || !f.intents.includes('rank') || !f.subject || !f.periods) return undefined;
  const { dimension, order, rows } = f.ranking;
  const s = f.subject;
  const v = (x: number) => formatValue(x, s.unit, f.locale);
  const ratio = isRatioUnit(s.unit);
  const word = ratio ? (order === 'most' ? 'highest' : 'lowest') : order === 'most' ? 'most' : s.unit.kind === 'count' ? 'fewest' : 'least';
  const [first, ...rest] = rows;
  if (f.ranking.named && rows.length === 2) {
    const more = ratio ? (order === 'most' ? 'a higher' : 'a lower') : order === 'most' ? 'more' : s.unit.kind === 'count' ? 'fewer' : 'less';
    return `${dimension}=${first!.value} had ${more} ${subjectName(s)} than ${rest[0]!.value} ${periodWords(f.periods.period, f.locale)}: ${v(first!.amount)} against ${v(rest[0]!.amount)} (${formatDelta(first!.amount - rest[0]!.amount, s.unit, f.locale)}).`;
  }
  const then = rest.slice(0, 3).map((r) => `${r.value} (${v(r.amount)})`);
  const more = rest.length > 3 ? ` and ${rest.length - 3} more` : '';
  const share = first!.share !== undefined ? `, ${formatShare(first!.share, f.locale)} of the total` : '';
  return `${dimension}=${first!.value} had the ${word} ${subjectName(s)} ${periodWords(f.periods.period, f.locale)}: ${v(first!.amount)}${share}; then ${then.join(', ')}${more}.`;
}

/** For a question that asks how much it was: the period's figure, and a day's when asked for (or when the metric adds up). */
function valueSentence(f: Finding): string | undefined {
  if (!f.intents.includes('value') || f.intents.includes('why') || f.intents.includes('rank') || !f.subject || !f.periods || !f.premise) return undefined;
  const s = f.subject;
  const v = (x: number) => formatValue(x, s.unit, f.locale);
  const days = daysBetween(f.periods.period.from, f.periods.period.to) + 1;
  const sums = s.aggregation === 'sum';
  const perDay = sums && days > 1 ? `, ${v(f.premise.actual / days)} a day` : '';
  if (f.perDay && sums && days > 1) return `${subjectName(s)} averaged ${v(f.premise.actual / days)} a day ${periodWords(f.periods.period, f.locale)} (${v(f.premise.actual)} in all).`;
  const verb = sums ? 'totalled' : s.aggregation === 'last' ? 'ended at' : s.aggregation === 'mean' ? 'averaged' : 'was';
  return `${subjectName(s)} ${verb} ${v(f.premise.actual)} ${periodWords(f.periods.period, f.locale)}${perDay}.`;
}

export function answerFirstSentence(f: Finding): string {
  return displayed(firstSentence(f), f.display);
}

function firstSentence(f: Finding): string {
  const main = mainSentence(f);
  const ranked = rankingSentence(f);
  if (ranked) return `${ranked} In all, ${main}`;
  // Asked which part comes first of a metric kept as one total: say so before what it did.
  if (f.intents.includes('rank') && f.subject && f.premise) return `${subjectName(f.subject)} has no label with two or more values, so its parts cannot be ranked. In all, ${main}`;
  const value = valueSentence(f);
  return value ? `${value} ${main}` : main;
}

/** The driver a chain goes through, as the report names it: `ad_spend (channel=search)`. */
export function chainDriverName(c: RootChain): string {
  const labels = segmentName(c.driver.labels);
  return `${c.driver.metric}${labels ? ` (${labels})` : ''}`;
}

/** ", driven by ad_spend (channel=search), −70.0 % from Tue 10 Nov (acting 3 days later), 92 % of sessions' own move": the chain's next link, with its own change and date. */
export function chainWords(c: RootChain, locale = DEFAULT_LOCALE): string {
  const d = c.driver;
  const moved = d.before > 0 ? formatChange(d.after / d.before - 1, locale) : '';
  const from = d.startedOn ? ` from ${formatDay(d.startedOn, locale)}` : '';
  const lag = d.lagDays ? ` (acting ${d.lagDays} day${d.lagDays === 1 ? '' : 's'} later)` : '';
  const part = c.part ? partWords(c.part, d.metric, locale) : '';
  return `, driven by ${chainDriverName(c)}, ${moved}${from}${lag}, which accounts for ${formatShare(Math.min(1, d.shareOfFactor), locale)} of ${possessive(c.factor.name)} own move${part}`;
}

/** ", and within it by channel=search, −70.0 % from Sun 8 Nov, 96 % of ad_spend's own move": a driver's label value that moved it. */
export function partWords(part: DriverPart, metric: string, locale = DEFAULT_LOCALE): string {
  const moved = part.before > 0 ? formatChange(part.after / part.before - 1, locale) : 'new';
  return `, and within it by ${segmentName(part.labels)}, ${moved}${part.startedOn ? ` from ${formatDay(part.startedOn, locale)}` : ''}, ${formatShare(part.shareOfDriver, locale)} of ${possessive(metric)} own move`;
}

/** "spread evenly over every region and carrier (each −13 % to −17 %)", when the segments found the change everywhere alike; else undefined. */
export function evenWords(f: Finding): string | undefined {
  const even = f.segments?.even;
  if (!even || f.causes.length) return undefined;
  const range = formatChange(even.low, f.locale) === formatChange(even.high, f.locale) ? formatChange(even.low, f.locale) : `${formatChange(even.low, f.locale)} to ${formatChange(even.high, f.locale)}`;
  return `spread evenly over every ${new Intl.ListFormat('en-GB', { type: 'conjunction' }).format(even.dimensions)} (each ${range})`;
}

function mainSentence(f: Finding): string {
  const locale = f.locale;
  if (f.status === 'unknown-metric') {
    const names = f.available ?? [];
    const list = names.length === 0 ? 'no metrics at all' : `${names.slice(0, LISTED).join(', ')}${names.length > LISTED ? ` and ${names.length - LISTED} more` : ''}`;
    const what = f.asked ? `"${f.asked}"` : 'the question';
    const near = f.closest?.length ? `; the closest by name or meaning ${f.closest.length === 1 ? 'is' : 'are'} ${new Intl.ListFormat('en-GB', { type: 'conjunction' }).format(f.closest)}` : '';
    return `No metric in this tenant's catalog matches ${what}, so nothing was analysed${near}; the catalog has ${list}.`;
  }
  const s = f.subject!;
  const periods = f.periods!;
  if (f.status === 'no-data' || !f.premise) {
    return f.missing === 'comparison'
      ? `${subjectName(s)} has data ${periodWords(periods.period, locale)} but none for ${comparisonWords(periods.period, periods.comparison, locale)} to compare it with, so no change could be measured.`
      : `${subjectName(s)} has no data ${periodWords(periods.period, locale)}, so it could not be analysed.`;
  }
  const p = f.premise;
  const v = (x: number) => formatValue(x, s.unit, locale);
  const ratio = isRatioUnit(s.unit);
  const size = p.relativeChange === null ? '' : formatChange(Math.abs(p.relativeChange), locale).replace('+', '');
  const move = p.observed === 'flat'
    ? `was flat${p.relativeChange === null ? '' : ` (${formatChange(p.relativeChange, locale)})`}`
    : `${p.observed === 'up' ? 'rose' : 'fell'}${size ? ` ${size}` : ''}${ratio ? ` (${formatDelta(p.change, s.unit, locale)})` : ''}`;
  const when = periodWords(periods.period, locale);
  const figures = `from ${v(p.comparison)} to ${v(p.actual)} against ${comparisonWords(periods.period, periods.comparison, locale)}`;
  const band = p.band ? `${v(p.band.p10)} to ${v(p.band.p90)}` : '';

  const covers = coverOf(f);
  if (covers.asks === 'ahead') {
    if (f.intents.includes('forecast') && f.forecast) {
      const fc = f.forecast;
      return `${subjectName(s)} is expected at ${v(fc.p50)} from ${formatDay(fc.from, locale)} to ${formatDay(fc.to, locale)} (p10–p90 ${v(fc.p10)} to ${v(fc.p90)}), after it ${move} ${when}.`;
    }
    if (f.intents.includes('what-if') && f.whatIf) {
      const w = f.whatIf;
      if (w.noReliableRelation) return `The history shows no reliable relation between ${w.metric} and ${subjectName(s)} (${w.noReliableRelation.words}), so "${w.text}" has no estimate and nothing is proposed from it.`;
      if (!w.effect) return `${w.metric ?? 'The lever named'} is not a declared driver of ${subjectName(s)} and no elasticity could be estimated, so "${w.text}" has no estimate.`;
      const via = w.through?.effect ? ` through ${w.through.factor} (${formatDelta(w.through.effect.p50, w.through.unit, locale)}, elasticity ${w.effect.elasticity.toFixed(2)} ${w.effect.source})` : '';
      const elasticity = w.through?.effect ? '' : `, elasticity ${w.effect.elasticity.toFixed(2)} ${w.effect.source}`;
      return `"${w.text}" would change ${subjectName(s)} by ${formatDelta(w.effect.p50, s.unit, locale)}${via} over a period like ${formatPeriod(periods.period, locale)} (p10–p90 ${formatDelta(w.effect.p10, s.unit, locale)} to ${formatDelta(w.effect.p90, s.unit, locale)}${elasticity}).`;
    }
  }
  if (p.verdict === 'false-premise') {
    const claim = p.claimed === 'down' ? 'fall' : 'rise';
    return `${subjectName(s)} did not ${claim} ${when}: it ${move}, ${figures}.`;
  }
  if (covers.move === 'normal') {
    const normal = p.position === 'inside' ? `within its normal range for the period (expected ${band}, p10–p90)` : `${p.position} its expected range (${band}, p10–p90), so not an unusual ${p.claimed === 'up' ? 'rise' : 'fall'}`;
    return `${subjectName(s)} ${move} ${when}, ${figures}, which is ${normal}.`;
  }
  const outside = p.band ? `, ${p.position} its expected range of ${band}` : '';
  const started = f.changePoint ? `; the change started ${formatDay(f.changePoint.day, locale)}${f.events[0] ? `, ${f.events[0].offsetDays === 0 ? 'the day of' : f.events[0].offsetDays > 0 ? 'a day before' : 'a day after'} “${f.events[0].event.title}”` : ''}` : '';
  const top = f.causes[0];
  // "The largest part" only when its decomposition has other parts (the other views are other readings of the change).
  const several = f.causes.filter((c) => c.view === top?.view).length > 1;
  // Causes found together through the labels are named together (two codecs failing at once), up
  // to three, and how many more there are: "−X (26 % of the change) comes from A, −Y (22 %) from B
  // and −Z (20 %) from C, and 2 more segments −W (32 %)".
  const segments = top?.view === 'segment' ? f.causes.filter((c) => c.view === 'segment') : [];
  const together = segments.slice(1).filter((c) => Math.abs(c.share) >= TOGETHER_SHARE).slice(0, 2);
  const part = (c: Cause) => `${formatDelta(c.contribution, s.unit, locale)} (${formatShare(c.share, locale)}) from ${c.name}`;
  const more = segments.slice(1 + together.length);
  const moreWords = together.length && more.length
    ? `, and ${more.length} more ${more.length === 1 ? 'segment' : 'segments'} ${formatDelta(more.reduce((a, c) => a + c.contribution, 0), s.unit, locale)} (${formatShare(more.reduce((a, c) => a + c.share, 0), locale)})`
    : '';
  const others = together.map((c, i) => `${i === together.length - 1 ? ' and' : ','} ${part(c)}`).join('') + moreWords;
  const cause = top
    ? `; ${several && !together.length ? 'the largest part, ' : ''}${formatDelta(top.contribution, s.unit, locale)} (${formatShare(top.share, locale)} of the change)${several && !together.length ? ',' : ''} comes from ${top.view === 'segment' ? top.name : top.view === 'driver' ? `${top.name}${top.lagDays ? ` (${top.lagDays} days earlier)` : ''}${f.driverPart && f.driverPart.metric === top.metric ? partWords(f.driverPart, f.driverPart.metric, locale) : ''}` : top.name}${top.view === 'formula' && f.chain?.factor.name === top.name && f.chain.factor.before > 0 ? ` (${formatChange(f.chain.factor.after / f.chain.factor.before - 1, locale)})${chainWords(f.chain, locale)}` : ''}`
    : '';
  const evenly = evenWords(f);
  if (!top && evenly) return `${subjectName(s)} ${move} ${when}, ${figures}${outside}${started}; the ${p.observed === 'up' ? 'rise' : 'fall'} is ${evenly}, so no one part explains it.`;
  const where = f.primaryView !== 'segment' ? f.causes.find((c) => c.view === 'segment') : undefined;
  const concentrated = where ? `, concentrated in ${where.name} (${formatShare(where.share, locale)})` : '';
  return `${subjectName(s)} ${move} ${when}, ${figures}${outside}${started}${cause}${others}${concentrated}.`;
}
