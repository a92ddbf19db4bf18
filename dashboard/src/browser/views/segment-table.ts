import { h } from '../dom.js';

/** A report's drill-down of a change through the subject's labels (GET /api/v1/insight/jobs/{id}: `report.segmentTables`). */
export interface SegmentTable {
  title: string;
  metric: string;
  unit: string | null;
  method: string;
  values: 'TOTAL' | 'RATIO';
  period: { from: string; to: string; text: string };
  comparison: { from: string; to: string; text: string };
  change: number;
  changeText: string;
  rows: {
    kind: 'SEGMENT' | 'REMAINDER';
    label: string;
    labels: Record<string, string>;
    text: { before: string | null; after: string | null; contribution: string; share: string; explanatoryPower: string | null; surprise: string | null };
  }[];
}

const METHOD: Record<string, string> = {
  localization: 'the smallest set of label combinations that explains the change',
  adtributor: 'Adtributor over the labels',
  'adtributor+drill-down': 'Adtributor over the labels, then a second label inside',
  'combination-search': 'a search over label combinations (Squeeze)',
};

/**
 * The segments that account for a change, as a table a screen reader reads by row and column:
 * one row per segment, largest contribution first, the unexplained rest last. The figures are
 * the report's own text (its unit and locale, like the waterfall beside it). On a narrow screen
 * each row stacks into a card with its column names (CSS), so nothing scrolls sideways; the
 * explicit roles keep it a table for assistive technology once its display changes.
 */
export function segmentTableView(table: SegmentTable): HTMLElement {
  const columns = [
    { key: 'before', head: 'Before', sub: table.comparison.text },
    { key: 'after', head: 'After', sub: table.period.text },
    { key: 'contribution', head: 'Contribution', sub: '' },
    { key: 'share', head: 'Share of the change', sub: '' },
    { key: 'explanatoryPower', head: 'Explanatory power', sub: '' },
    { key: 'surprise', head: 'Surprise', sub: '' },
  ] as const;
  const head = h(
    'tr',
    { role: 'row' },
    h('th', { scope: 'col', role: 'columnheader' }, 'Segment'),
    ...columns.map((c) => h('th', { scope: 'col', role: 'columnheader', class: 'num' }, c.head, c.sub ? h('span', { class: 'sub' }, c.sub) : null)),
  );
  const rows = table.rows.map((row) =>
    h(
      'tr',
      { role: 'row', class: row.kind === 'REMAINDER' ? 'remainder' : 'segment' },
      h('th', { scope: 'row', role: 'rowheader' }, row.label),
      ...columns.map((c) => {
        const text = row.text[c.key];
        return h('td', { role: 'cell', class: text ? 'num' : 'num empty', 'data-label': c.sub ? `${c.head} (${c.sub})` : c.head }, text ?? '–');
      }),
    ),
  );
  const what = table.values === 'RATIO' ? `each segment's own ${table.metric}` : `each segment's ${table.metric}`;
  return h(
    'div',
    { class: 'segment-table', 'data-metric': table.metric },
    h(
      'table',
      { class: 'segments', role: 'table' },
      h('caption', {}, table.title),
      h('thead', { role: 'rowgroup' }, head),
      h('tbody', { role: 'rowgroup' }, ...rows),
    ),
    h(
      'p',
      { class: 'table-note' },
      `${table.period.text} against ${table.comparison.text}: ${table.changeText} in all. Before and after are ${what}; found by ${METHOD[table.method] ?? table.method}. `
        + 'Explanatory power is a segment\'s share of the change within the scope it was chosen in; surprise, how far its share of the whole moved.',
    ),
  );
}
