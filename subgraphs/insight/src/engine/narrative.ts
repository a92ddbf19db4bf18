/**
 * The answer after its first sentence, in the order an analyst gives it (ANALYSIS.md): how
 * unusual the move is, when it started and what happened then, the causes with their shares and
 * the part nothing explains, what moved at the same time (never called a cause), where the metric
 * is heading, and what the what-if would bring. Every figure is the engine's, formatted for the
 * metric's unit and the locale.
 */
import { coverOf } from './coverage.js';
import { answerFirstSentence, chainWords, comparisonWords, evenWords } from './answer.js';
import { subjectName } from './scope.js';
import { isRatioUnit } from './catalog.js';
import type { Finding } from './finding.js';
import { formatChange, formatDay, formatDelta, formatShare, formatValue, possessive } from './format.js';
import { segmentName } from './causes.js';
import { FOLDED_SHARE } from './remainder.js';
import { displayed } from './display.js';

export interface Narrative {
  /** The judgment's first sentence: the answer to the question asked. */
  answer: string;
  /** Each further statement, one sentence each, in reading order. */
  statements: { topic: 'ranking' | 'range' | 'start' | 'cause' | 'remainder' | 'candidate' | 'forecast' | 'what-if' | 'note'; text: string }[];
}

const MAX_CAUSES = 4;
/** Parts a ranking lists in its statement. */
const MAX_RANKED = 10;
/** A cause smaller than this share of the change is not stated (the waterfall still shows it), unless it is the largest. */
const MIN_STATED_SHARE = 0.05;

/** The comparison period in words ("the week before", "in September 2026"). */
function comparisonName(f: Finding): string {
  const words = comparisonWords(f.periods!.period, f.periods!.comparison, f.locale);
  return words.startsWith('the ') ? words : `in ${words}`;
}

/** A lead's evidence in words: its rank correlation once the weekly season is out, and its adjusted p-value over the tests made. */
function evidence(c: { correlation?: number; adjustedP?: number; tests?: number }): string {
  if (c.correlation === undefined) return '';
  const p = c.adjustedP !== undefined ? `, p ${c.adjustedP < 0.001 ? '< 0.001' : `= ${c.adjustedP.toFixed(3)}`} after ${c.tests} tests` : '';
  return ` (rank correlation ${c.correlation.toFixed(2)} with the weekly season removed${p})`;
}

export function narrate(f: Finding): Narrative {
  const answer = answerFirstSentence(f);
  const statements: Narrative['statements'] = [];
  if (f.status !== 'analysed' || !f.subject || !f.premise) return { answer, statements };
  const locale = f.locale;
  const unit = f.subject.unit;
  const v = (x: number) => formatValue(x, unit, locale);
  const d = (x: number) => formatDelta(x, unit, locale);
  const p = f.premise;
  if (f.ranking && f.intents.includes('rank')) {
    const rows = f.ranking.rows.slice(0, MAX_RANKED);
    const then = comparisonName(f);
    const row = (r: (typeof rows)[number]) => {
      const aside = [...(r.share !== undefined ? [`${formatShare(r.share, locale)} of the total`] : []), ...(r.before !== undefined ? [`${v(r.before)} ${then}`] : [])];
      return `${r.value} ${v(r.amount)}${aside.length ? ` (${aside.join('; ')})` : ''}`;
    };
    const more = f.ranking.rows.length > rows.length ? `, and ${f.ranking.rows.length - rows.length} more not listed` : '';
    const ratio = isRatioUnit(unit);
    const first = f.ranking.order === 'most' ? (ratio ? 'highest' : 'largest') : ratio ? 'lowest' : 'smallest';
    statements.push({ topic: 'ranking', text: `By ${f.ranking.dimension}, ${first} first: ${rows.map(row).join(', ')}${more}.` });
  }
  if (p.band && p.position) {
    const where = p.position === 'inside' ? 'inside' : p.position === 'below' ? 'below' : 'above';
    const history = p.band.historyBefore ? `the history before the change started (${formatDay(p.band.historyBefore, locale)})` : 'the history before the period';
    statements.push({ topic: 'range', text: `From ${history}, ${subjectName(f.subject)} was expected between ${v(p.band.p10)} and ${v(p.band.p90)} (p10–p90); the actual ${v(p.actual)} is ${where} that range.` });
  }
  if (f.changePoint) {
    const events = f.events.filter((e) => e.changePoint === f.changePoint!.day).map((e) => `“${e.event.title}” (${e.event.kind}${e.offsetDays ? `, ${e.offsetDays > 0 ? 'the day after' : 'the day before'}` : ''})`);
    statements.push({ topic: 'start', text: `The change started on ${formatDay(f.changePoint.day, locale)}${events.length ? `; on the timeline then: ${events.join('; ')}` : ''}.` });
  }
  if (p.observed !== 'flat' && f.causes.length > 0) {
    for (const c of f.causes.filter((c, i) => i === 0 || Math.abs(c.share) >= MIN_STATED_SHARE).slice(0, MAX_CAUSES)) {
      const how = c.view === 'segment' ? `the segment ${c.name}${c.outside?.length ? ` outside ${c.outside.join(' and ')} (their shared part is counted there)` : ''}` : c.view === 'driver' ? `the driver ${c.name}${c.lagDays ? ` (acting after ${c.lagDays} days)` : ''}` : `the factor ${c.name}`;
      const interval = c.interval ? ` (p10–p90 ${d(c.interval.p10)} to ${d(c.interval.p90)})` : '';
      statements.push({ topic: 'cause', text: `${how[0]!.toUpperCase()}${how.slice(1)} accounts for ${d(c.contribution)}${interval}, ${formatShare(c.share, locale)} of the change.` });
      if (c.view === 'driver' && f.driverPart && f.driverPart.metric === c.metric) {
        const part = f.driverPart;
        const moved = part.before > 0 ? formatChange(part.after / part.before - 1, locale) : 'from nothing';
        statements.push({ topic: 'cause', text: `Within ${c.name}, ${segmentName(part.labels)} moved ${moved}${part.startedOn ? ` from ${formatDay(part.startedOn, locale)}` : ''}, ${formatShare(part.shareOfDriver, locale)} of ${possessive(c.name)} own move: that is where the chain from ${subjectName(f.subject)} ends, at one label value of a declared driver.` });
      }
      if (c.view === 'formula' && f.chain?.factor.name === c.name) {
        const k = f.chain;
        const factorMove = k.factor.before > 0 ? formatChange(k.factor.after / k.factor.before - 1, locale) : '';
        statements.push({ topic: 'cause', text: `${c.name} itself moved ${factorMove}${chainWords(k, locale)} (at ${k.driver.source === 'declared' ? 'the declared' : 'an estimated'} elasticity of ${k.driver.elasticity.toFixed(2)}): that is where the chain from ${subjectName(f.subject)} ends${k.part ? ', at one label value of a declared driver' : ' among the declared drivers'}.` });
      }
    }
    const views = new Set(f.causes.map((c) => c.view));
    if (views.has('segment') && views.size > 1) {
      statements.push({ topic: 'cause', text: `The ${views.has('formula') ? 'factors' : 'drivers'} and the segments are two views of one change, through what it moved and where it happened; each view's shares add up to the change on its own, so the two are not added together.` });
    }
    statements.push({
      topic: 'remainder',
      text: f.remainder.folded
        ? `Nothing is left unexplained: the rest, ${d(f.remainder.folded)} (under ${formatShare(FOLDED_SHARE, locale)} of the change), is spread over the causes in proportion to their size.`
        : Math.abs(f.remainder.share) < 0.005 ? 'Nothing is left unexplained (under 1 % of the change).' : `Left unexplained: ${d(f.remainder.value)} (${formatShare(f.remainder.share, locale)} of the change).`,
    });
  } else if (p.observed !== 'flat' && coverOf(f).move !== 'normal') {
    const labelsSeen = !f.leavesLeftOut?.length;
    const evenly = evenWords(f);
    if (evenly) statements.push({ topic: 'remainder', text: `The ${p.observed === 'up' ? 'rise' : 'fall'} is ${evenly}: no label value or combination of values stands out, and no declared formula or driver of ${subjectName(f.subject)} accounts for it.` });
    else statements.push({ topic: 'remainder', text: `No declared formula${labelsSeen ? ', driver or label' : ' or driver'} of ${subjectName(f.subject)} explains the change${labelsSeen ? '' : ' (its labels were not examined)'}: all of ${d(p.change)} is unexplained.` });
  }
  for (const c of f.candidates.slice(0, 3)) {
    const name = `${c.metric}${c.labels ? ` (${segmentName(c.labels)})` : ''}`;
    const implied = c.implied
      ? `; at the elasticity its history shows (${c.implied.elasticity.toFixed(2)}) that shift implies ${formatChange(c.implied.change, locale)} for ${subjectName(f.subject)}, ${formatShare(Math.max(0, c.implied.share), locale)} of its own shift`
      : c.history === 'no-reliable-relation' ? '; its history shows no reliable relation with it, so how much it explains cannot be told' : c.history === 'too-short' ? '; too little history to tell how much it explains' : '';
    const text = c.reason === 'change-point' && c.day
      ? `${name} moved at the same time (its level shifted ${formatChange(c.shift ?? 0, locale)} on ${formatDay(c.day, locale)})${implied}`
      : c.lagDays
        ? `${possessive(c.metric)} day-to-day changes lead ${possessive(subjectName(f.subject))} by ${c.lagDays} day${c.lagDays === 1 ? '' : 's'}${evidence(c)}`
        : `${possessive(c.metric)} day-to-day changes go with ${possessive(subjectName(f.subject))} on the same day${evidence(c)}`;
    statements.push({ topic: 'candidate', text: `${text}; that is a lead to check, not a proven cause.` });
  }
  if (f.forecast) {
    statements.push({ topic: 'forecast', text: `If nothing changes, ${subjectName(f.subject)} is expected at ${v(f.forecast.p50)} (p10 ${v(f.forecast.p10)}, p90 ${v(f.forecast.p90)}) from ${formatDay(f.forecast.from, locale)} to ${formatDay(f.forecast.to, locale)}.` });
  }
  if (f.whatIf?.noReliableRelation && f.whatIf.metric) {
    statements.push({ topic: 'what-if', text: `The history shows no reliable relation between ${f.whatIf.metric} and ${subjectName(f.subject)} (${f.whatIf.noReliableRelation.words}): the effect of "${f.whatIf.text}" cannot be told from none, so it is not stated and nothing is proposed from it.` });
  }
  if (f.whatIf?.effect && f.whatIf.metric) {
    const e = f.whatIf.effect;
    statements.push({
      topic: 'what-if',
      text: `Changing ${f.whatIf.metric}${Object.keys(f.whatIf.labels).length ? ` (${Object.entries(f.whatIf.labels).map(([k, x]) => `${k}=${x}`).join(', ')})` : ''} by ${f.whatIf.change >= 0 ? '+' : ''}${formatShare(f.whatIf.change, locale)} would move ${subjectName(f.subject)} by ${d(e.p50)} (p10 ${d(e.p10)}, p90 ${d(e.p90)}) over a period like this one, ${f.whatIf.through?.effect ? `through ${f.whatIf.through.factor}, which it would move by ${formatDelta(f.whatIf.through.effect.p50, f.whatIf.through.unit, locale)} at an ${e.source} elasticity of ${e.elasticity.toFixed(2)}, the other factors held` : `at an ${e.source} elasticity of ${e.elasticity.toFixed(2)}`}.`,
    });
    const cost = f.whatIf.cost;
    if (cost) {
      const r = (x: number) => x.toFixed(2);
      statements.push({
        topic: 'what-if',
        text: `That means ${d(cost.increment)} of spend over the period (${v(cost.periodSpend)} now); each unit ${cost.increment >= 0 ? 'spent' : 'saved'} ${cost.increment >= 0 ? 'brings back' : 'costs'} ${r(cost.return.p50)} (p10 ${r(cost.return.p10)}, p90 ${r(cost.return.p90)}), so it ${cost.pays ? 'pays within the interval' : 'does not pay within the interval'}.`,
      });
    }
  }
  return { answer, statements: statements.map((st) => ({ ...st, text: displayed(st.text, f.display) })) };
}
