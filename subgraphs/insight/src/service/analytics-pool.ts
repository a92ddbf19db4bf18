import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { AnalyticsTask } from './analytics-thread.js';
import type { Forecast, ForecastPoint } from '../engine/forecast.js';
import type { Scenario, Simulation } from '../engine/simulate.js';
import type { AnalysisInput } from '../engine/analyse.js';
import type { Finding } from '../engine/finding.js';
import type { Point } from '../domain/metric.js';

/** Where forecasts and simulations are computed. */
export interface Analytics {
  forecast(points: readonly Point[], horizon: number): Promise<Forecast>;
  simulate(baseline: readonly ForecastPoint[], scenario: Scenario): Promise<Simulation>;
  /** The analysis engine over fetched series (engine/analyse.ts). */
  analyse(input: AnalysisInput): Promise<Finding>;
  close(): Promise<void>;
}

/**
 * On a pool of worker threads (piscina): one per core but one, at least one, started when
 * first needed and stopped when idle. An error thrown by a fit reaches the caller with its name
 * and message (a RangeError for a series too short to fit).
 */
export function threadAnalytics(options: { maxThreads?: number } = {}): Analytics {
  const pool = new Piscina<AnalyticsTask, Forecast | Simulation | Finding>({
    filename: new URL('./analytics-thread.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.maxThreads ?? Math.max(1, availableParallelism() - 1),
    idleTimeout: 60_000,
  });
  const run = async <T>(task: AnalyticsTask): Promise<T> => (await pool.run(task)) as T;
  return {
    forecast: (points, horizon) => run<Forecast>({ kind: 'forecast', points, horizon }),
    simulate: (baseline, scenario) => run<Simulation>({ kind: 'simulate', baseline, scenario }),
    analyse: (input) => run<Finding>({ kind: 'analyse', input }),
    close: () => pool.destroy(),
  };
}
