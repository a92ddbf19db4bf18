import { z } from 'zod';
import { AGGREGATIONS, checkLabels, checkMetricName, checkPoints, METRIC_LIMITS, parseStep, RESERVED_LABEL_KEYS, type Aggregation, type Labels, type Point } from './metric.js';
import { ingestDefinitionsSchema, type MetricDefinition } from './metric-definition.js';
import { timestampSchema } from './timestamp.js';

/**
 * What clients send to ingest and look up metrics, as zod schemas (GraphQL, REST, MCP and the
 * agent's tools all validate with these). Timestamps are RFC 3339 strings or integer epoch
 * milliseconds; every rule failure names its field.
 */

const timestamp = timestampSchema;

/** A label name that would reach the prototype is refused before it can vanish from the object. */
const labelKey = z.string().refine((k) => !RESERVED_LABEL_KEYS.includes(k), { message: 'this label name is reserved (__proto__, constructor, prototype)' });
const labels = z.record(labelKey, z.string()).default({});

/** Each field checks itself, so one bad field does not hide the problems of the others. */
const seriesInput = z
  .object({
    name: z.string().superRefine((name, ctx) => {
      const problem = checkMetricName(name, '');
      if (problem) ctx.addIssue({ code: 'custom', message: problem.detail });
    }),
    labels: labels.superRefine((value, ctx) => {
      for (const p of checkLabels(value, '')) ctx.addIssue({ code: 'custom', path: p.pointer.split('/').filter(Boolean), message: p.detail });
    }),
    unit: z.string().min(1).max(30).optional(),
    points: z.array(z.object({ timestamp, value: z.number() }).strict()).min(1).max(METRIC_LIMITS.pointsPerBatch),
  })
  .strict()
  .superRefine((s, ctx) => {
    for (const p of checkPoints(s.points.map((x) => ({ t: x.timestamp, value: x.value })), '')) {
      ctx.addIssue({ code: 'custom', path: ['points', ...p.pointer.split('/').filter(Boolean).map((k) => (/^\d+$/.test(k) ? Number(k) : k))], message: p.detail });
    }
  });

export const ingestInputSchema = z
  .object({ series: z.array(seriesInput).min(1).max(METRIC_LIMITS.seriesPerBatch), metrics: ingestDefinitionsSchema.optional() })
  .strict()
  .superRefine((batch, ctx) => {
    const total = batch.series.reduce((n, s) => n + s.points.length, 0);
    if (total > METRIC_LIMITS.pointsPerBatch) ctx.addIssue({ code: 'custom', path: ['series'], message: `at most ${METRIC_LIMITS.pointsPerBatch} points per request, got ${total}` });
  });

export type IngestInput = z.output<typeof ingestInputSchema>;

/**
 * Label names zod would drop before any rule sees them (`__proto__`), looked for in the raw
 * body: a label must be refused, never silently merged into the unlabelled series.
 */
export function reservedLabelProblems(input: unknown): { pointer: string; detail: string }[] {
  const series = (input as { series?: unknown } | null)?.series;
  if (!Array.isArray(series)) return [];
  return series.flatMap((s, i) => {
    const labels = (s as { labels?: unknown } | null)?.labels;
    if (!labels || typeof labels !== 'object') return [];
    return RESERVED_LABEL_KEYS.filter((k) => Object.hasOwn(labels, k)).map((k) => ({ pointer: `/series/${i}/labels/${k}`, detail: `label name ${JSON.stringify(k)} is reserved` }));
  });
}

/** The body's `metrics` definitions, by name (none when the body has none). */
export function ingestDefinitions(input: IngestInput): { name: string; definition: MetricDefinition }[] {
  return (input.metrics ?? []).map(({ name, ...definition }) => ({ name, definition }));
}

export function ingestBatch(input: IngestInput): { name: string; labels: Labels; unit?: string | undefined; points: Point[] }[] {
  return input.series.map((s) => ({ name: s.name, labels: s.labels, unit: s.unit, points: s.points.map((p) => ({ t: p.timestamp, value: p.value })) }));
}

export const lookupInputSchema = z
  .object({
    name: z.string().min(1).max(METRIC_LIMITS.nameLength).describe('Metric name, e.g. "revenue" or "ad_spend".'),
    labels: labels.describe('Only series carrying these labels, e.g. {"channel": "search"}.'),
    from: timestamp.optional().describe('Start (inclusive), ISO 8601; default 90 days before `to`.'),
    to: timestamp.optional().describe('End (exclusive), ISO 8601; default now.'),
    aggregation: z.enum(AGGREGATIONS).optional().describe('How points are combined per step: sum, avg, min, max, last or count; default sum (avg for ratios).'),
    step: z.string().optional().describe('Bucket size: 15m, 1h, 1d or 1w; default: the raw points.'),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.step !== undefined && parseStep(q.step) === undefined) ctx.addIssue({ code: 'custom', path: ['step'], message: `step ${JSON.stringify(q.step)} must be a number and a unit m, h, d or w (e.g. 1d)` });
    if (q.from !== undefined && q.to !== undefined && q.from >= q.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must be before to' });
    for (const [field, t] of [['from', q.from], ['to', q.to]] as const) {
      if (t !== undefined && (t < METRIC_LIMITS.minTime || t >= METRIC_LIMITS.maxTime)) ctx.addIssue({ code: 'custom', path: [field], message: `${field} must be between 1970 and 2200` });
    }
  });

export type LookupInput = z.input<typeof lookupInputSchema>;

/** Which stored series to delete: a name, and optionally labels the series must carry. */
export const removeInputSchema = z
  .object({
    name: z.string().min(1).max(METRIC_LIMITS.nameLength).describe('Metric name.'),
    labels: labels.describe('Only the series carrying these labels; default every series of the name.'),
  })
  .strict();

export interface MetricQuery {
  name: string;
  labels: Labels;
  from: number;
  to: number;
  aggregation?: Aggregation | undefined;
  stepMs?: number | undefined;
}

const DAY = 86_400_000;

/** A validated lookup with its defaults filled in (`now` for the default window). */
export function metricQuery(input: z.output<typeof lookupInputSchema>, now: number): MetricQuery {
  const to = input.to ?? now;
  return {
    name: input.name,
    labels: input.labels,
    from: input.from ?? to - 90 * DAY,
    to,
    aggregation: input.aggregation,
    stepMs: input.step === undefined ? undefined : parseStep(input.step),
  };
}
