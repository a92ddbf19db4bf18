/**
 * One ranked list of causes from the three decompositions of a change (formula, declared
 * drivers, labels). They are different cuts of the same change, so their contributions are
 * never added across views: the primary view is the one that leaves the least unexplained
 * (formula first on a tie, then drivers, then labels); its causes come first, by size, and the
 * remainder is its own. The other views' causes follow, also by size.
 */
import type { DriverAttribution } from './driver-attribution.js';
import type { Cause, View } from './finding.js';
import type { FormulaAttribution } from './formula-attribution.js';
import { FOLDED_SHARE, remainderOf, shareOf, type Remainder } from './remainder.js';
import type { SegmentAttribution } from './segment-attribution.js';

export function segmentName(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(', ');
}

export function rankCauses(change: number, views: { formula?: FormulaAttribution; drivers: readonly DriverAttribution[]; segments?: SegmentAttribution }): { primaryView?: View; causes: Cause[]; remainder: Remainder } {
  const byView = new Map<View, Cause[]>();
  if (views.formula) {
    byView.set('formula', views.formula.contributions.map((c) => ({ view: 'formula', name: c.name, metric: c.name, contribution: c.contribution, share: c.share })));
  }
  if (views.drivers.length) {
    byView.set('driver', views.drivers.map((d) => ({
      view: 'driver',
      name: Object.keys(d.labels).length ? `${d.metric} (${segmentName(d.labels)})` : d.metric,
      metric: d.metric,
      ...(Object.keys(d.labels).length ? { labels: d.labels } : {}),
      contribution: d.contribution,
      share: d.share,
      interval: { p10: d.contributionP10, p90: d.contributionP90 },
      lagDays: d.lagDays,
    })));
  }
  if (views.segments?.causes.length) {
    // Shares of the subject's change (the leaves fetched may not add up to the total exactly).
    byView.set('segment', views.segments.causes.map((s) => ({ view: 'segment', name: segmentName(s.labels), labels: s.labels, contribution: s.contribution, share: shareOf(s.contribution, change), ...(s.outside?.length ? { outside: s.outside.map(segmentName) } : {}) })));
  }
  let primaryView: View | undefined;
  let remainder = remainderOf(change, []);
  for (const view of ['formula', 'driver', 'segment'] as const) {
    const causes = byView.get(view);
    if (!causes) continue;
    const r = remainderOf(change, causes.map((c) => c.contribution));
    if (!primaryView || Math.abs(r.value) < Math.abs(remainder.value) - 1e-9 * Math.abs(change)) {
      primaryView = view;
      remainder = r;
    }
  }
  // A rest within what the attribution can tell apart is spread over the primary view's causes
  // in proportion to their contributions, so their shares add up to 100 % on their own.
  const primary = primaryView ? byView.get(primaryView)! : [];
  const attributed = primary.reduce((a, c) => a + c.contribution, 0);
  if (primary.length && remainder.value !== 0 && Math.abs(remainder.share) < FOLDED_SHARE && attributed !== 0 && Math.sign(attributed) === Math.sign(change)) {
    const k = change / attributed;
    byView.set(primaryView!, primary.map((c) => ({ ...c, contribution: c.contribution * k, share: shareOf(c.contribution * k, change), ...(c.interval ? { interval: { p10: c.interval.p10 * k, p90: c.interval.p90 * k } } : {}) })));
    remainder = { value: 0, share: 0, folded: remainder.value };
  }
  const bySize = (a: Cause, b: Cause) => Math.abs(b.contribution) - Math.abs(a.contribution);
  const causes: Cause[] = [];
  if (primaryView) causes.push(...byView.get(primaryView)!.sort(bySize));
  for (const view of ['formula', 'driver', 'segment'] as const) if (view !== primaryView) causes.push(...(byView.get(view) ?? []).sort(bySize));
  return { ...(primaryView ? { primaryView } : {}), causes, remainder };
}
