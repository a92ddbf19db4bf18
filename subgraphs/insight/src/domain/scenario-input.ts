import { z } from 'zod';
import { METRIC_LIMITS } from './metric.js';
import { FORECAST_LIMITS, SIMULATION_LIMITS } from './scenario-limits.js';

const seriesRef = z
  .object({
    name: z.string().min(1).max(METRIC_LIMITS.nameLength).describe('Metric name.'),
    labels: z.record(z.string(), z.string()).default({}).describe('Label filter; several matching series are added up.'),
  })
  .strict();

const horizon = z.number().int().min(1).max(FORECAST_LIMITS.maxHorizon);

export const forecastInputSchema = seriesRef
  .extend({
    horizon: horizon.default(30).describe('Days to forecast, 1 to 366; default 30.'),
  })
  .strict();

export type ForecastInput = z.output<typeof forecastInputSchema>;

export const simulateInputSchema = z
  .object({
    target: seriesRef.describe('The metric whose outcome is simulated, e.g. {"name": "revenue"}.'),
    driver: seriesRef.describe('The metric that changes, e.g. {"name": "ad_spend", "labels": {"channel": "search"}}.'),
    changePercent: z.number().gt(-100).max(1000).describe('Change of the driver in percent, e.g. 20 for +20%.'),
    elasticity: z.number().min(-10).max(10).optional().describe('% change of the target per 1% of the driver; default: estimated from the history.'),
    horizon: horizon.default(30).describe('Days simulated, 1 to 366; default 30.'),
    runs: z.number().int().min(SIMULATION_LIMITS.minRuns).max(SIMULATION_LIMITS.maxRuns).default(2000).describe('Monte Carlo runs; default 2000.'),
    seed: z.number().int().min(0).max(2 ** 31 - 1).default(1).describe('Random seed; the same seed gives the same result. Default 1.'),
  })
  .strict();

export type SimulateInput = z.output<typeof simulateInputSchema>;
