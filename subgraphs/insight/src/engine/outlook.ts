/**
 * Looking ahead: where the subject is heading (the forecaster's band over the horizon, from
 * the last 16 weeks), and what a what-if lever would do to it (the subject's elasticity to the
 * lever, declared or estimated with the driver's lag, applied to a period like the analysed
 * one: effect = value × ((1 + change)^e − 1), p10–p90 from the elasticity's interval).
 */
import { BAND_HISTORY_DAYS, contiguousTail, forecastPeriod, type Combine } from './band.js';
import type { MetricDef } from './catalog.js';
import { addDays, daysBetween, dayOf } from './days.js';
import { declaredElasticity, estimateLaggedElasticity, isReliable, unreliableWords } from './driver-attribution.js';
import type { ForecastSummary, WhatIfOutcome } from './finding.js';
import type { WhatIf } from './intent.js';
import type { Daily } from './series.js';

/** The forecast for the `horizonDays` after the last day of `daily`; undefined with under 3 weeks of contiguous history. */
export function forecastAhead(daily: readonly { day: string; value: number }[], how: Combine, horizonDays: number): ForecastSummary | undefined {
  const history = daily.slice(-BAND_HISTORY_DAYS);
  if (history.length < 21 || daysBetween(history[0]!.day, history[history.length - 1]!.day) + 1 !== history.length) return undefined;
  const f = forecastPeriod(history, 0, horizonDays, how, contiguousTail(daily));
  const points = f.days.map((p) => ({ day: dayOf(p.t), p10: p.p10, p50: p.p50, p90: p.p90 }));
  return { from: points[0]!.day, to: points[points.length - 1]!.day, model: f.model, p10: f.p10, p50: f.p50, p90: f.p90, points };
}

/**
 * The subject's expected change under the what-if, when the lever is one of its declared
 * drivers (or, undeclared, when an elasticity can be estimated at lag 0).
 */
/**
 * The what-if's effect on the subject over a period like the analysed one (p10–p90 over the
 * elasticity's interval), and when the lever is money in the subject's currency its cost and
 * return: the lever's spend in the period × the change, the effect per unit spent, and whether
 * it pays: the effect net of the extra spend is positive even at p10 (a raise gains more than
 * it costs; a cut, whose increment is a saving, loses less than it saves).
 */
export function whatIfEffect(whatIf: WhatIf, subject: MetricDef, value: number, subjectDaily: Daily | undefined, leverDaily: Daily | undefined, until: string, seed: number, lever?: { def: MetricDef; from: string } | undefined): WhatIfOutcome {
  const spec = subject.drivers.find((d) => d.metric === whatIf.metric);
  const lag = spec?.lagDays ?? 0;
  const e = spec?.elasticity !== undefined
    ? declaredElasticity(spec.elasticity)
    : subjectDaily && leverDaily ? estimateLaggedElasticity(subjectDaily, leverDaily, lag, addDays(until, 1), seed) : undefined;
  if (!e || !(value > 0) || !(1 + whatIf.change > 0)) return { ...whatIf };
  if (!isReliable(e)) return { ...whatIf, noReliableRelation: { elasticity: e.value, low95: e.low95, high95: e.high95, observations: e.observations, words: unreliableWords(e) } };
  const effect = (x: number) => value * ((1 + whatIf.change) ** x - 1);
  const [a, b] = [effect(e.p10), effect(e.p90)];
  const outcome: WhatIfOutcome = { ...whatIf, effect: { p10: Math.min(a, b), p50: effect(e.value), p90: Math.max(a, b), elasticity: e.value, elasticityInterval: { p10: Math.min(e.p10, e.p90), p90: Math.max(e.p10, e.p90) }, source: e.source } };
  const cost = costOf(outcome.effect!, whatIf, subject, leverDaily, until, lever);
  return cost ? { ...outcome, cost } : outcome;
}

/** The lever's spend over the period and what the effect returns on its change, when the lever is money in the subject's currency. */
function costOf(fx: { p10: number; p50: number; p90: number }, whatIf: WhatIf, subject: MetricDef, leverDaily: Daily | undefined, until: string, lever?: { def: MetricDef; from: string }): WhatIfOutcome['cost'] {
  const sameMoney = lever && lever.def.unit.kind === 'currency' && subject.unit.kind === 'currency' && lever.def.unit.code === subject.unit.code;
  if (!sameMoney || !leverDaily) return undefined;
  let spent = 0;
  for (const [day, v] of leverDaily) if (day >= lever.from && day <= until) spent += v;
  const increment = spent * whatIf.change;
  if (!(spent > 0) || increment === 0) return undefined;
  return { periodSpend: spent, increment, return: { p10: fx.p10 / increment, p50: fx.p50 / increment, p90: fx.p90 / increment }, pays: fx.p10 > increment };
}

/**
 * A what-if on the driver of one of the subject's formula factors, carried through: the
 * factor's change from its driver (its own elasticity, as `whatIfEffect`), then the subject's
 * through the formula, holding the other factors: a product moves by the factor's relative
 * change (subject × Δfactor ÷ factor), a sum by the factor's change itself. The cost and return
 * are then the subject's, when the lever is money in its currency.
 */
export function whatIfThrough(whatIf: WhatIf, subject: MetricDef, value: number, factor: { def: MetricDef; value: number; daily: Daily | undefined; kind: 'product' | 'sum' }, leverDaily: Daily | undefined, until: string, seed: number, lever?: { def: MetricDef; from: string }): WhatIfOutcome {
  const own = whatIfEffect(whatIf, factor.def, factor.value, factor.daily, leverDaily, until, seed);
  if (!own.effect || !(factor.value > 0)) return { ...own, through: { factor: factor.def.name, unit: factor.def.unit } };
  const carry = (x: number) => (factor.kind === 'product' ? (value * x) / factor.value : x);
  const effect = { ...own.effect, p10: carry(own.effect.p10), p50: carry(own.effect.p50), p90: carry(own.effect.p90) };
  const outcome: WhatIfOutcome = { ...whatIf, effect, through: { factor: factor.def.name, unit: factor.def.unit, effect: { p10: own.effect.p10, p50: own.effect.p50, p90: own.effect.p90 } } };
  const cost = costOf(effect, whatIf, subject, leverDaily, until, lever);
  return cost ? { ...outcome, cost } : outcome;
}
