/**
 * Which series an analysis needs, so the caller can fetch them before calling `analyse`:
 * the subject (or a ratio's numerator and denominator) as a total and by leaves, each formula
 * factor and the drivers it declares, each declared driver (the part its labels name, as a total), the what-if lever, and
 * every other catalog metric's total as a candidate, and its label values' totals (`parts`, for
 * a driver declared as a whole too) for the days around the period; then, once the leaves are read, the part
 * of the subject the question names (`partRequests`). Totals span the history window; leaves
 * are read only for the periods the analysis compares (`periodsFor`, from the totals), so what
 * crosses from the database grows with the leaves, not with the leaves times the days of
 * history. Days are UTC.
 */
import { catalogOf, declaredRelatives, factorsOf, ratioParts, type CatalogEntry, type MetricDef } from './catalog.js';
import { addDays, dayOf } from './days.js';
import { readQuestion, type QuestionReading } from './intent.js';
import { namedScope } from './scope.js';
import { labelValuesOf, type SeriesData } from './series.js';
import { resolveSubject, type SubjectResolution } from './subject.js';

export type SeriesRole = 'subject' | 'numerator' | 'denominator' | 'factor' | 'driver' | 'lever' | 'candidate';

export interface SeriesRequest {
  metric: string;
  role: SeriesRole;
  /**
   * `total`: the metric's daily total (one unlabelled series; with `labels`, the total of the
   * part they name, returned with those labels and marked `total`); `leaves`: one daily series
   * per label combination, for the compared periods' days only.
   */
  shape: 'total' | 'leaves' | 'parts';
  /** `parts`: one daily total per value of each of these labels (read for the days candidates need, see `PARTS`). */
  partLabels?: string[];
  /** Only series carrying these labels, added up (return them with these labels). */
  labels?: Record<string, string>;
  /** First and last day wanted, ISO dates, included (for leaves: the bounds the periods fall within). */
  from: string;
  to: string;
}

export interface AnalysisPlan {
  reading: QuestionReading;
  subject: SubjectResolution;
  requests: SeriesRequest[];
}

/**
 * Label values of other metrics searched as candidates (`parts`): labels with at most
 * `valuesPerLabel` values (a label of thousands, such as a URL, has no part large enough to move
 * a total), at most `total` parts over every metric, read for the `daysBefore` days before the
 * period to its end (enough for a change point near the subject's and eight weeks of history
 * before it).
 */
export const PARTS = { valuesPerLabel: 60, total: 2_000, daysBefore: 100 } as const;

/** Days of history requested: a year and a comparison month, so the same period a year before can be compared. */
export const HISTORY_DAYS = 430;

/** The first and last day every total is read for, ending on the day of `now`. */
function historyWindow(now: number | Date): { from: string; to: string } {
  const to = dayOf(typeof now === 'number' ? now : now.getTime());
  return { from: addDays(to, -HISTORY_DAYS), to };
}

/**
 * The subject: the metric the question names outside its what-if clause, else one named in the
 * what-if clause apart from the lever ("what would happen to bookings if …"), else for a bare
 * what-if the metric that declares the lever as a driver.
 */
export function subjectOf(reading: QuestionReading, defs: Map<string, MetricDef>): SubjectResolution {
  const found = resolveSubject(reading.subjectText, defs.values());
  if (found.kind === 'metric') return found;
  const lever = reading.whatIf?.metric;
  const inClause = reading.whatIfRest ? resolveSubject(reading.whatIfRest, [...defs.values()].filter((d) => d.name !== lever)) : undefined;
  if (inClause?.kind === 'metric') return inClause;
  if (lever) {
    const target = [...defs.values()].find((d) => d.drivers.some((x) => x.metric === lever));
    if (target) return { kind: 'metric', name: target.name, how: 'lever-target', others: [] };
  }
  return found;
}

export function plan(question: string, catalog: readonly CatalogEntry[], now: number | Date): AnalysisPlan {
  const defs = catalogOf(catalog);
  const reading = readQuestion(question, defs.values());
  const subject = subjectOf(reading, defs);
  const { from, to } = historyWindow(now);
  const requests: SeriesRequest[] = [];
  const seen = new Set<string>();
  const add = (metric: string, role: SeriesRole, shape: SeriesRequest['shape'], labels?: Record<string, string>, partLabels?: string[]) => {
    const key = `${metric}|${shape}|${JSON.stringify(labels ?? {})}`;
    if (seen.has(key)) return;
    seen.add(key);
    requests.push({ metric, role, shape, ...(labels && Object.keys(labels).length ? { labels } : {}), ...(partLabels ? { partLabels } : {}), from, to });
  };
  let partsLeft: number = PARTS.total;
  /** The label values of an additive metric as parts, while the budget lasts. */
  const addParts = (name: string, role: SeriesRole) => {
    const def = defs.get(name);
    if (!def || def.aggregation !== 'sum' || seen.has(`${name}|parts|{}`)) return;
    const labels = Object.entries(def.labelValues).filter(([, values]) => values.length >= 2 && values.length <= PARTS.valuesPerLabel);
    const size = labels.reduce((n, [, values]) => n + values.length, 0);
    if (!labels.length || size > partsLeft) return;
    partsLeft -= size;
    add(name, role, 'parts', undefined, labels.map(([label]) => label).sort());
  };
  const addMetric = (name: string, role: SeriesRole, leaves: boolean) => {
    const parts = ratioParts(defs.get(name)?.aggregation ?? 'sum');
    if (parts) {
      for (const [part, r] of [[parts.numerator, 'numerator'], [parts.denominator, 'denominator']] as const) {
        add(part, role === 'subject' ? r : role, 'total');
        if (leaves) add(part, role === 'subject' ? r : role, 'leaves');
      }
    } else {
      add(name, role, 'total');
      if (leaves) add(name, role, 'leaves');
    }
  };
  if (subject.kind === 'metric') {
    const def = defs.get(subject.name)!;
    addMetric(def.name, 'subject', true);
    const formula = def.formula;
    if (formula) {
      for (const f of factorsOf(formula)) {
        addMetric(f, 'factor', false);
        // A factor's own declared drivers: the chain goes on to what moved the factor.
        for (const d of defs.get(f)?.drivers ?? []) {
          add(d.metric, 'driver', 'total', d.labels);
          // A driver declared as a whole: which of its label values moved is the chain's next link.
          if (!Object.keys(d.labels ?? {}).length) addParts(d.metric, 'driver');
        }
      }
    }
    for (const d of def.drivers) {
      add(d.metric, 'driver', 'total', d.labels);
      if (!Object.keys(d.labels ?? {}).length) addParts(d.metric, 'driver');
    }
    if (reading.whatIf?.metric) add(reading.whatIf.metric, 'lever', 'total', reading.whatIf.labels);
    for (const other of defs.keys()) if (other !== def.name) addMetric(other, 'candidate', false);
    // Candidates nobody declared, at label level: the label values of every metric the declarations do not connect to the subject.
    const relatives = declaredRelatives(def.name, defs);
    for (const other of defs.keys()) if (!relatives.has(other)) addParts(other, 'candidate');
  }
  return { reading, subject, requests };
}

/** What a question is about: its reading, the subject, and the part of it (a scope) it names, from the catalog and the series read. */
export interface QuestionSubject {
  reading: QuestionReading;
  subject: SubjectResolution;
  scope: Record<string, string>;
}

/**
 * The question read against the catalog and the label values of the series read (a value the
 * catalog does not list is still recognised in the leaves), the subject, and the part of it the
 * question names. `analyse` and `partRequests` both read a question this way, so the part read
 * before is the part analysed.
 */
export function questionSubject(question: string, defs: Map<string, MetricDef>, valuesOf: (metric: string) => Record<string, string[]>): QuestionSubject {
  const labelValues = new Map([...defs.keys()].map((n) => [n, valuesOf(n)]));
  const reading = readQuestion(question, defs.values(), labelValues);
  const subject = subjectOf(reading, defs);
  if (subject.kind !== 'metric') return { reading, subject, scope: {} };
  const def = defs.get(subject.name)!;
  const numerator = ratioParts(def.aggregation)?.numerator;
  const scope = namedScope(reading.subjectText, def, { ...def.labelValues, ...labelValues.get(def.name), ...(numerator ? labelValues.get(numerator) : {}) });
  return { reading, subject, scope };
}

/**
 * The part of the subject the question names ("why did mobile bookings drop"), as totals to read
 * before `analyse`: the part's own history, added up where the data is (the leaves are read for
 * the compared periods only, so adding them up would give no history). None when the question
 * names no part. `series` are those read for `plan`'s requests.
 */
export function partRequests(question: string, catalog: readonly CatalogEntry[], series: readonly SeriesData[], now: number | Date): SeriesRequest[] {
  const defs = catalogOf(catalog);
  // The leaves' label values, by metric, in one pass (no book of every leaf built on the service's thread).
  const leaves = new Map<string, Readonly<Record<string, string>>[]>();
  for (const s of series) if (!s.total && Object.keys(s.labels).length > 0) (leaves.get(s.name) ?? leaves.set(s.name, []).get(s.name)!).push(s.labels);
  const { subject, scope } = questionSubject(question, defs, (metric) => labelValuesOf(leaves.get(metric) ?? []));
  if (subject.kind !== 'metric' || !Object.keys(scope).length) return [];
  const def = defs.get(subject.name)!;
  const parts = ratioParts(def.aggregation);
  const named: [string, SeriesRole][] = parts ? [[parts.numerator, 'numerator'], [parts.denominator, 'denominator']] : [[def.name, 'subject']];
  return named.map(([metric, role]) => ({ metric, role, shape: 'total', labels: scope, ...historyWindow(now) }));
}
