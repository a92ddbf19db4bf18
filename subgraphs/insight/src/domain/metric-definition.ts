import { z } from 'zod';
import { checkLabels, checkMetricName, RESERVED_LABEL_KEYS } from './metric.js';

/**
 * What a metric means, as a tenant declares it: its unit, how it aggregates over time, which way
 * is good, what it is made of (a formula), what drives it, other words for it, a description.
 * The shape is the analysis engine's catalog entry (engine/catalog.ts) without the labels, which
 * come from the stored series. Every rule failure names its field; unknown members are refused.
 */

export const DEFINITION_LIMITS = { formulaTerms: 10, drivers: 20, synonyms: 20, synonymLength: 60, descriptionLength: 500, maxLagDays: 90, nounLength: 40, displayLength: 80, displayLabels: 20, displayValues: 200 } as const;

const metricName = z.string().superRefine((name, ctx) => {
  const problem = checkMetricName(name, '');
  if (problem) ctx.addIssue({ code: 'custom', message: problem.detail });
});

const unitSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('currency'), code: z.string().regex(/^[A-Z]{3}$/, 'code must be an ISO 4217 currency code of three capital letters, e.g. USD') }).strict(),
    z.object({ kind: z.literal('count'), noun: z.string().trim().min(1).max(DEFINITION_LIMITS.nounLength).optional() }).strict(),
    z.object({ kind: z.literal('ratio') }).strict(),
    z.object({ kind: z.literal('percent') }).strict(),
  ])
  .meta({ description: 'currency (with an ISO 4217 code), count (with an optional plural noun), ratio (a fraction shown as percent) or percent (already in points)' });

const aggregationSchema = z
  .union([z.enum(['sum', 'mean', 'last']), z.object({ ratio: z.object({ numerator: metricName, denominator: metricName }).strict() }).strict()])
  .meta({ description: 'How daily values combine over a period: sum, mean, last, or {ratio: {numerator, denominator}} (sum of one ÷ sum of the other)' });

const terms = z.array(metricName).min(2, 'a formula has at least 2 terms').max(DEFINITION_LIMITS.formulaTerms);
/** An object with exactly one of product and sum (so a bad term is named by its own pointer, not lost in a union). */
const formulaSchema = z
  .object({ product: terms.optional(), sum: terms.optional() })
  .strict()
  .superRefine((f, ctx) => {
    if ((f.product === undefined) === (f.sum === undefined)) ctx.addIssue({ code: 'custom', message: 'a formula has exactly one of product and sum' });
  })
  .transform((f): { product: string[] } | { sum: string[] } => (f.product ? { product: f.product } : { sum: f.sum! }))
  .meta({ description: '{product: [names]} (the metric is their product) or {sum: [names]} (their sum)' });

const labelKey = z.string().refine((k) => !RESERVED_LABEL_KEYS.includes(k), { message: 'this label name is reserved (__proto__, constructor, prototype)' });

const driverSchema = z
  .object({
    metric: metricName.describe('The driving metric.'),
    labels: z
      .record(labelKey, z.string())
      .superRefine((value, ctx) => {
        for (const p of checkLabels(value, '')) ctx.addIssue({ code: 'custom', path: p.pointer.split('/').filter(Boolean), message: p.detail });
      })
      .optional()
      .describe('Only the driver\'s series with these labels, e.g. {"channel": "search"}.'),
    lagDays: z.number().int('lagDays must be a whole number of days').min(0).max(DEFINITION_LIMITS.maxLagDays).optional().describe('Days between a move of the driver and its effect, 0-90; default 0.'),
    elasticity: z.number().refine(Number.isFinite, 'elasticity must be a finite number').optional().describe('Known % change of the metric per 1 % of the driver; estimated from history when absent.'),
  })
  .strict();

const words = z.string().trim().min(1).max(DEFINITION_LIMITS.displayLength);

const displaySchema = z
  .object({
    name: words.optional().describe('What a person reads for the metric, e.g. "Conversion rate".'),
    labels: z.record(labelKey, words).refine((r) => Object.keys(r).length <= DEFINITION_LIMITS.displayLabels, `at most ${DEFINITION_LIMITS.displayLabels} labels`).optional().describe('Words for its labels, e.g. {"channel": "Channel"}.'),
    values: z
      .record(labelKey, z.record(z.string(), words).refine((r) => Object.keys(r).length <= DEFINITION_LIMITS.displayValues, `at most ${DEFINITION_LIMITS.displayValues} values a label`))
      .refine((r) => Object.keys(r).length <= DEFINITION_LIMITS.displayLabels, `at most ${DEFINITION_LIMITS.displayLabels} labels`)
      .optional()
      .describe('Words for label values, by label, e.g. {"channel": {"search": "Search ads"}}.'),
  })
  .strict()
  .describe('The words reports use instead of the names: the metric\'s, its labels\' and their values\' (names stay in the data, the API and the tools).');

/** A definition as declared (the body of PUT /api/v1/insight/metrics/{name}/definition). */
export const metricDefinitionSchema = z
  .object({
    unit: unitSchema.optional(),
    aggregation: aggregationSchema.optional(),
    upIsGood: z.boolean().optional().describe('Whether a rise is good; default true.'),
    formula: formulaSchema.optional(),
    drivers: z.array(driverSchema).max(DEFINITION_LIMITS.drivers).optional(),
    synonyms: z.array(z.string().trim().min(1).max(DEFINITION_LIMITS.synonymLength)).max(DEFINITION_LIMITS.synonyms).optional().describe('Other words people use for it, e.g. ["sales", "income"].'),
    description: z.string().trim().min(1).max(DEFINITION_LIMITS.descriptionLength).optional(),
    display: displaySchema.optional(),
  })
  .strict()
  .meta({ example: { unit: { kind: 'count', noun: 'orders' }, aggregation: 'sum', upIsGood: true, drivers: [{ metric: 'marketing_spend', labels: { channel: 'search' }, lagDays: 1 }], synonyms: ['purchases'], display: { name: 'Orders', values: { channel: { search: 'Search ads' } } } } });

export type MetricDefinition = z.output<typeof metricDefinitionSchema>;

/** Where a definition refers to `name` itself: a metric is not its own factor, driver or ratio part. */
export function selfReferences(name: string, def: MetricDefinition): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const self = (path: (string | number)[], what: string) => out.push({ path, message: `${what} may not be ${JSON.stringify(name)} itself` });
  if (def.formula) {
    const [op, list] = 'product' in def.formula ? (['product', def.formula.product] as const) : (['sum', def.formula.sum] as const);
    list.forEach((term, i) => term === name && self(['formula', op, i], 'a formula term'));
  }
  def.drivers?.forEach((d, i) => d.metric === name && self(['drivers', i, 'metric'], 'a driver'));
  if (def.aggregation && typeof def.aggregation === 'object') {
    const { numerator, denominator } = def.aggregation.ratio;
    if (numerator === name) self(['aggregation', 'ratio', 'numerator'], 'the ratio\'s numerator');
    if (denominator === name) self(['aggregation', 'ratio', 'denominator'], 'the ratio\'s denominator');
    if (numerator === denominator) out.push({ path: ['aggregation', 'ratio', 'denominator'], message: 'the denominator must differ from the numerator' });
  }
  return out;
}

/** A definition with its metric's name: what PUT, GraphQL `defineMetric` and the ingest body's `metrics` take. */
export const namedDefinitionSchema = z
  .object({ name: metricName, definition: metricDefinitionSchema })
  .strict()
  .superRefine((v, ctx) => {
    for (const p of selfReferences(v.name, v.definition)) ctx.addIssue({ code: 'custom', path: ['definition', ...p.path], message: p.message });
  });

/** The ingest body's optional `metrics` member: definitions written with the series, in the same transaction. */
export const ingestDefinitionSchema = metricDefinitionSchema
  .extend({ name: metricName })
  .strict()
  .superRefine((v, ctx) => {
    const { name, ...def } = v;
    for (const p of selfReferences(name, def)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
  });

export const ingestDefinitionsSchema = z
  .array(ingestDefinitionSchema)
  .max(100)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((d, i) => {
      if (seen.has(d.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `metric ${JSON.stringify(d.name)} is defined twice` });
      seen.add(d.name);
    });
  })
  .describe('Optional: what each metric means (unit, aggregation, upIsGood, formula, drivers, synonyms, description, display), one entry per metric name, stored with the series.');

/** A stored definition as the API returns it. */
export interface StoredDefinition {
  name: string;
  definition: MetricDefinition;
  updatedAt: Date;
  updatedBy: string;
}
