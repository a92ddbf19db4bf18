import type { Unit } from '../engine/catalog.js';
import { segmentName } from '../engine/causes.js';
import { formatDelta, formatPeriod, formatShare, formatValue } from '../engine/format.js';
import type { Period } from '../engine/periods.js';
import { shareOf } from '../engine/remainder.js';
import type { SegmentRow, SegmentTable, TablePeriod } from '../domain/report.js';
import type { ToolOutcome } from './composed.js';

const MINUS = '\u2212';

/** A plain figure with a true minus sign: explanatory power to two decimals, surprise to three significant digits. */
function plain(v: number, locale: string, options: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(locale, options).format(v).replace('-', MINUS);
}

/** The unit as a chart names it: a currency's code, a count's noun, else the kind. */
export function unitName(unit: Unit): string | null {
  return unit.kind === 'currency' ? unit.code : unit.kind === 'count' ? (unit.noun ?? null) : unit.kind;
}

function period(p: Period, locale: string): TablePeriod {
  return { from: p.from, to: p.to, text: formatPeriod(p, locale) };
}

/**
 * The drill-down table of an analysis whose segment attribution found segments: one row per
 * segment (the most specific the engine chose: the second level where it drilled down, the
 * label combinations where it searched them), largest contribution first, then the change of
 * all the segments not listed, so that the rows add up to the subject's change. That last row is
 * not "unexplained": the narrative's remainder is what no formula, driver or segment explains,
 * and a report whose narrative says nothing is left unexplained must not end its table with an
 * "unexplained" row. Before and after are each
 * segment's own value in the subject's unit (its own ratio, for a ratio metric); shares are of
 * the subject's change, as the narrative states them. Undefined when there is no such table
 * (no analysis, no move, no labels, or no segment found).
 */
export function segmentTable(o: ToolOutcome<'analyse_change'>): SegmentTable | undefined {
  const f = o.data.finding;
  if ( f.status !== 'analysed' || !f.subject || !f.premise || !f.periods || f.premise.observed === 'flat') return undefined;
  const found = f.segments?.causes ?? [];
  if (!f.segments || found.length === 0) return undefined;
  const { unit, name } = f.subject;
  const locale = f.locale;
  const change = f.premise.change;
  const ratio = typeof f.subject.aggregation === 'object';
  const segments: SegmentRow[] = [...found]
    .sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution))
    .map((s) => {
      // Findings written before segments carried their own value: an additive segment's sums are its value.
      const value = s.value ?? (ratio ? undefined : { before: s.before, after: s.after });
      const share = shareOf(s.contribution, change);
      return {
        kind: 'SEGMENT',
        label: segmentName(s.labels),
        labels: { ...s.labels },
        before: value?.before ?? null,
        after: value?.after ?? null,
        contribution: s.contribution,
        share,
        explanatoryPower: s.explanatoryPower,
        surprise: s.surprise,
        text: {
          before: value ? formatValue(value.before, unit, locale) : null,
          after: value ? formatValue(value.after, unit, locale) : null,
          contribution: formatDelta(s.contribution, unit, locale),
          share: formatShare(share, locale),
          explanatoryPower: plain(s.explanatoryPower, locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
          surprise: plain(s.surprise, locale, { maximumSignificantDigits: 3 }),
        },
      };
    });
  const rest = change - segments.reduce((a, r) => a + r.contribution, 0);
  const remainder: SegmentRow = {
    kind: 'REMAINDER',
    label: 'all other segments',
    labels: {},
    before: null,
    after: null,
    contribution: rest,
    share: shareOf(rest, change),
    explanatoryPower: null,
    surprise: null,
    text: { before: null, after: null, contribution: formatDelta(rest, unit, locale), share: formatShare(shareOf(rest, change), locale), explanatoryPower: null, surprise: null },
  };
  return {
    title: `Where ${name} changed, by segment`,
    step: o.step,
    metric: name,
    unit: unitName(unit),
    method: f.segments.method,
    values: ratio ? 'RATIO' : 'TOTAL',
    period: period(f.periods.period, locale),
    comparison: period(f.periods.comparison, locale),
    change,
    changeText: formatDelta(change, unit, locale),
    rows: [...segments, remainder],
  };
}
