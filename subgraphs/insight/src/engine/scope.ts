/**
 * A question about part of a metric ("why did mobile bookings drop", "refunds in market br"):
 * the label values of the subject the question names, and the series narrowed to them, so the
 * whole analysis (premise, range, change point, segments inside the part) runs on that part.
 *
 * A value is named when all its words are in the question (stemmed) and it says something: at
 * least 3 characters and not a common word ("it", "us", "all", "total"), unless the question
 * writes it after its label ("market fr", "market=fr"). A label with two values named is
 * ambiguous and left alone. Words of the metric's own name never name a value.
 */
import { isAdditive, ratioParts, type MetricDef } from './catalog.js';
import { partKey, type SeriesData } from './series.js';
import { stem, tokens } from './subject.js';

const COMMON = new Set(['all', 'any', 'and', 'are', 'but', 'for', 'had', 'has', 'how', 'its', 'new', 'not', 'now', 'off', 'one', 'our', 'out', 'the', 'top', 'two', 'was', 'who', 'why', 'yes', 'you', 'total', 'other', 'none', 'null', 'unknown', 'default', 'true', 'false', 'week', 'month', 'year', 'day', 'today', 'last', 'this', 'next', 'down', 'rise', 'drop', 'fall']);

/** The subject's label values the text names, e.g. `{device: 'mobile'}`; empty when none. */
export function namedScope(text: string, def: MetricDef, labelValues: Readonly<Record<string, readonly string[]>>): Record<string, string> {
  const words = tokens(text).map((t) => t.word);
  const said = new Set(words);
  const own = new Set([def.name, ...def.synonyms].flatMap((n) => tokens(n).map((t) => t.word)));
  const lower = text.toLowerCase();
  const scope: Record<string, string> = {};
  for (const [label, values] of Object.entries(labelValues)) {
    const hits = values.filter((value) => {
      const parts = tokens(value).map((t) => t.word);
      if (parts.length === 0 || parts.some((p) => own.has(p))) return false;
      const escaped = value.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const afterLabel = new RegExp(`(?<![a-z0-9])${label.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*[=:]?\\s*${escaped}(?![a-z0-9])`).test(lower);
      if (afterLabel) return true;
      const meaningful = value.length >= 3 && !COMMON.has(stem(value.toLowerCase()));
      return meaningful && parts.every((p) => said.has(p));
    });
    if (hits.length === 1) scope[label] = hits[0]!;
  }
  return scope;
}

const matches = (labels: Readonly<Record<string, string>>, scope: Readonly<Record<string, string>>) => Object.entries(scope).every(([k, v]) => labels[k] === v);

/**
 * The series with the subject (or a ratio subject's numerator and denominator) narrowed to the
 * scope: only its labelled series carrying the scope's values, and as its total their sum (their
 * mean day by day for a metric that does not add up). Every other metric's series stay as they are.
 */
export function scopedSeries(series: readonly SeriesData[], def: MetricDef, scope: Readonly<Record<string, string>>): SeriesData[] {
  const parts = ratioParts(def.aggregation);
  const names = new Set(parts ? [parts.numerator, parts.denominator] : [def.name]);
  // The scope's total read as one (plan asks for it where the data is): it is the total as it is,
  // and the leaves (which may cover only the periods compared) are not added up into it.
  const key = partKey(scope);
  const read = new Map(series.filter((s) => s.total && names.has(s.name) && partKey(s.labels) === key).map((s) => [s.name, s]));
  const out: SeriesData[] = [];
  for (const s of read.values()) out.push({ name: s.name, labels: {}, points: s.points });
  const totals = new Map<string, Map<number, number>>();
  const counts = new Map<string, Map<number, number>>();
  for (const s of series) {
    if (!names.has(s.name)) {
      out.push(s);
      continue;
    }
    if (Object.keys(s.labels).length === 0 || s.total || !matches(s.labels, scope)) continue;
    out.push(s);
    if (read.has(s.name)) continue;
    const total = totals.get(s.name) ?? new Map<number, number>();
    const count = counts.get(s.name) ?? new Map<number, number>();
    for (const p of s.points) {
      total.set(p.t, (total.get(p.t) ?? 0) + p.value);
      count.set(p.t, (count.get(p.t) ?? 0) + 1);
    }
    totals.set(s.name, total);
    counts.set(s.name, count);
  }
  const adds = parts !== undefined || isAdditive(def);
  for (const [name, total] of totals) {
    const count = counts.get(name)!;
    out.push({ name, labels: {}, points: [...total].sort((a, b) => a[0] - b[0]).map(([t, value]) => ({ t, value: adds ? value : value / count.get(t)! })) });
  }
  return out;
}

/** `device=mobile, market=fr` */
export function scopeText(scope: Readonly<Record<string, string>>): string {
  return Object.entries(scope).map(([k, v]) => `${k}=${v}`).join(', ');
}

/** The subject as the report names it: `bookings (device=mobile)` for a part, else its name. */
export function subjectName(subject: { name: string; scope?: Readonly<Record<string, string>> }): string {
  return subject.scope && Object.keys(subject.scope).length ? `${subject.name} (${scopeText(subject.scope)})` : subject.name;
}
