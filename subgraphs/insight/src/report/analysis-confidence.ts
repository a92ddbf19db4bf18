import type { Finding as EngineFinding } from '../engine/finding.js';
import { coverOf } from '../engine/coverage.js';
import { formatShare } from '../engine/format.js';
import type { Report } from '../domain/report.js';

/**
 * How far the report's answer can be trusted, from what the engine found rather than from how
 * many tools ran:
 * - nothing analysed (no such metric, no data): 0.2, the report answers nothing;
 * - a verdict that the move did not happen or is normal for the period: 0.85 with an expected
 *   range to judge against, 0.6 without one (a bare comparison of two periods);
 * - a real move: 0.4 + 0.45 × the share of it the causes explain (0.85 when they explain all of
 *   it, 0.4 when only leads that moved at the same time are left), 0.1 less without an
 *   expected range;
 * - a question only about the future: 0.8 − 0.5 × the forecast's p10–p90 width relative to its
 *   median (at least 0.3);
 * - a question only about a what-if: the same of the effect's p10–p90 width (at least 0.3), or
 *   0.2 when the lever has no estimate.
 * The reason says which of these applied, with the figures.
 */
export function analysisConfidence(f: EngineFinding): Report['confidence'] {
  const round = (x: number) => Math.round(Math.min(0.9, Math.max(0.1, x)) * 100) / 100;
  const covers = coverOf(f);
  if (covers.asks === 'nothing' || !f.premise || !f.subject) {
    return { value: 0.2, reason: f.status === 'unknown-metric' ? `Nothing was analysed: no metric of the catalog matches ${f.asked ? `"${f.asked}"` : 'the question'}.` : 'Nothing was analysed: the metric has no data for the period.' };
  }
  const p = f.premise;
  const ranged = p.band !== undefined;
  // An estimate of what lies ahead: the narrower its p10–p90 relative to its median, the surer.
  const widthOf = (x: { p10: number; p50: number; p90: number }) => (x.p50 !== 0 ? Math.abs(x.p90 - x.p10) / Math.abs(x.p50) : 1);
  const ahead = (width: number) => round(Math.max(0.3, 0.8 - 0.5 * width));
  if (covers.asks === 'ahead' && f.forecast) {
    const fc = f.forecast;
    const width = widthOf(fc);
    return { value: ahead(width), reason: `A forecast (${fc.model}) whose p10–p90 spans ${formatShare(width, f.locale)} of its median; the further ahead, the less it holds.` };
  }
  if (covers.asks === 'ahead' && f.whatIf) {
    const e = f.whatIf.effect;
    if (f.whatIf.noReliableRelation) return { value: 0.2, reason: `The what-if has no estimate: no reliable relation between ${f.whatIf.metric} and ${f.subject.name} in the history (${f.whatIf.noReliableRelation.words}).` };
    if (!e) return { value: 0.2, reason: `The what-if has no estimate: ${f.whatIf.metric ?? 'the lever named'} is not a declared driver of ${f.subject.name} and no elasticity could be estimated.` };
    const width = widthOf(e);
    return { value: ahead(width), reason: `A what-if whose effect's p10–p90 spans ${formatShare(width, f.locale)} of its median, at an ${e.source} elasticity of ${e.elasticity.toFixed(2)}; it holds for changes like those the history saw.` };
  }
  if (covers.move !== 'unusual') {
    return ranged
      ? { value: 0.85, reason: 'The verdict rests on the stored figures of both periods and on the expected range fitted on the history before the period.' }
      : { value: 0.6, reason: 'The verdict rests on the stored figures of both periods; there was too little history to fit an expected range.' };
  }
  const explained = Math.min(1, Math.max(0, 1 - Math.abs(f.remainder.share)));
  const value = 0.4 + 0.45 * (f.causes.length ? explained : 0) - (ranged ? 0 : 0.1);
  const why = f.causes.length
    ? `the causes found account for ${formatShare(explained, f.locale)} of it`
    : f.candidates.length ? 'no declared formula, driver or label explains it, only leads that moved at the same time' : 'nothing found explains it';
  return { value: round(value), reason: `The move is ${ranged ? `${p.position} its expected range` : 'real, though no expected range could be fitted'}; ${why}.` };
}
