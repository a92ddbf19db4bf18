import * as z from 'zod';

/** Pieces of the tools' output schemas that more than one tool returns. */

export const labelsSchema = z.record(z.string(), z.string()).describe('Series labels, e.g. {"channel": "search"}; {} for none.');

export const quantilesSchema = z.object({
  p10: z.number().describe('10th percentile.'),
  p50: z.number().describe('Median: the expected value.'),
  p90: z.number().describe('90th percentile.'),
});

/** One day of a p10-p90 band. */
export const bandPointSchema = quantilesSchema.extend({ t: z.string().describe('Day (YYYY-MM-DD, UTC).') });
