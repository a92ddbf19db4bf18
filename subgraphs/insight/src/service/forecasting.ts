import { parseInput, SvcError } from '@svc/kit';
import { estimateElasticity, type Elasticity } from '../engine/elasticity.js';
import type { Forecast } from '../engine/forecast.js';
import type { Simulation } from '../engine/simulate.js';
import { sumSeries, type Labels, type Point } from '../domain/metric.js';
import { forecastInputSchema, simulateInputSchema, type SimulateInput } from '../domain/scenario-input.js';
import type { Analytics } from './analytics-pool.js';
import type { MetricService } from './metrics.js';
import type { Caller } from './sources/metric-source.js';

const DAY = 86_400_000;
/** History a forecast or an elasticity estimate reads: two years of days. */
const HISTORY_DAYS = 730;

export interface SeriesForecast extends Forecast {
  name: string;
  labels: Labels;
  /** How many stored series were added up. */
  combined: number;
  history: Point[];
}

export interface ScenarioResult extends Simulation {
  target: { name: string; labels: Labels };
  driver: { name: string; labels: Labels };
  changePercent: number;
  horizon: number;
  seed: number;
  elasticity: Elasticity & { source: 'estimated' | 'given' };
  baseline: Forecast;
}

/** True when every number inside a model's result is finite. */
function allFinite(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(allFinite);
  if (value && typeof value === 'object') return Object.values(value).every(allFinite);
  return true;
}

/** Forecasts and what-if simulations over daily series, read through the metric service and computed by `analytics`. */
export function createForecastingService(deps: { metrics: MetricService; analytics: Analytics; now?: () => number }) {
  const now = deps.now ?? Date.now;

  async function daily(caller: Caller, name: string, labels: Labels): Promise<{ points: Point[]; combined: number }> {
    const to = Math.floor(now() / DAY) * DAY;
    const series = await deps.metrics.lookup(caller, { name, labels, from: to - HISTORY_DAYS * DAY, to, step: '1d' });
    if (series.length === 0) throw new SvcError('NOT_FOUND', `No series of ${name} matches the labels ${JSON.stringify(labels)}`);
    return { points: series.length === 1 ? series[0]!.points : sumSeries(series.map((s) => s.points)), combined: series.length };
  }

  /**
   * A series the models cannot fit (too short, constant, values far beyond the usual scale) is
   * the data's problem, not the service's: the caller (a job's step, a tool) gets a 422 naming
   * the series and the model's reason, and an analysis goes on with the rest of its evidence.
   */
  async function fitted<T>(work: Promise<T>, pointer: string, what: string): Promise<T> {
    let result: T;
    try {
      result = await work;
    } catch (error) {
      if (error instanceof SvcError) throw error;
      // By name and shape: the error crossed from a worker thread.
      const reason = error instanceof Error ? error.message : String(error);
      const message = error instanceof Error && error.name === 'RangeError' ? reason : `Could not fit ${what}: ${reason}`;
      throw new SvcError('BAD_USER_INPUT', message, { status: 422, errors: [{ pointer, detail: message }] });
    }
    if (!allFinite(result)) throw new SvcError('BAD_USER_INPUT', `Could not fit ${what}: the model's figures are not finite`, { status: 422, errors: [{ pointer, detail: 'the fit overflows' }] });
    return result;
  }

  async function forecastSeries(caller: Caller, input: unknown): Promise<SeriesForecast> {
    const q = parseInput(forecastInputSchema, input);
    const { points, combined } = await daily(caller, q.name, q.labels);
    const result = await fitted(deps.analytics.forecast(points, q.horizon), '/name', `a forecast to ${q.name}`);
    return { ...result, name: q.name, labels: q.labels, combined, history: points };
  }

  async function simulateScenario(caller: Caller, input: unknown): Promise<ScenarioResult> {
    const q: SimulateInput = parseInput(simulateInputSchema, input);
    const [target, driver] = await Promise.all([daily(caller, q.target.name, q.target.labels), daily(caller, q.driver.name, q.driver.labels)]);
    let elasticity: ScenarioResult['elasticity'];
    if (q.elasticity !== undefined) {
      elasticity = { value: q.elasticity, standardError: 0, observations: 0, source: 'given' };
    } else {
      const estimate = estimateElasticity(target.points, driver.points);
      if (!estimate) {
        throw new SvcError('BAD_USER_INPUT', `Not enough shared daily history of ${q.target.name} and ${q.driver.name} to estimate an elasticity; give one`, {
          status: 422,
          errors: [{ pointer: '/elasticity', detail: 'required: the history does not allow an estimate' }],
        });
      }
      elasticity = { ...estimate, source: 'estimated' };
    }
    const baseline = await fitted(deps.analytics.forecast(target.points, q.horizon), '/target', `a forecast to ${q.target.name}`);
    const simulation = await fitted(deps.analytics.simulate(baseline.points, { driverChange: q.changePercent / 100, elasticity, runs: q.runs, seed: q.seed }), '/target', `a simulation of ${q.target.name}`);
    return { ...simulation, target: q.target, driver: q.driver, changePercent: q.changePercent, horizon: q.horizon, seed: q.seed, elasticity, baseline };
  }

  return { forecast: forecastSeries, simulate: simulateScenario };
}

export type ForecastingService = ReturnType<typeof createForecastingService>;
