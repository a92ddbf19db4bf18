import { readFileSync } from 'node:fs';
import { AutoETS, initSync as initEts } from '@bsull/augurs/ets';
import { MSTL, initSync as initMstl } from '@bsull/augurs/mstl';
import { naturalStep, type Point } from '../domain/metric.js';
import { FORECAST_LIMITS } from '../domain/scenario-limits.js';
import { quantileOfSorted } from './quantiles.js';

/**
 * Forecasts with Grafana's augurs (Rust compiled to WebAssembly): MSTL removes the seasonal
 * components (weekly for daily data, daily for hourly data) and AutoETS models what is left,
 * with prediction intervals. Series without a recognised season use AutoETS alone.
 *
 * MSTL's intervals describe only the trend model's uncertainty, so they come out too narrow
 * on real data. The band is therefore calibrated split-conformally: the model is refitted
 * without the most recent weeks, its errors on them are measured in units of its predicted
 * half-width, and the final band is widened by their 80th percentile (never narrowed). The result's p10-p90 band is the calibrated 80% interval.
 */

export interface ForecastPoint {
  t: number;
  p10: number;
  p50: number;
  p90: number;
}

export interface Forecast {
  /** e.g. `MSTL(7)+AutoETS` */
  model: string;
  stepMs: number;
  periods: number[];
  /** Factor the model's own band was widened by (>= 1). */
  calibration: number;
  points: ForecastPoint[];
}


const DAY = 86_400_000;
const HOUR = 3_600_000;
const LEVEL = 0.8;
const CALIBRATION_ORIGINS = 3;

let loaded = false;
function load(): void {
  if (loaded) return;
  for (const [name, init] of [['ets', initEts], ['mstl', initMstl]] as const) {
    init({ module: readFileSync(new URL(`${name}_bg.wasm`, import.meta.resolve(`@bsull/augurs/${name}`))) });
  }
  loaded = true;
}

/** Seasonal periods worth modelling for a step, given how much history there is (two full seasons needed). */
export function seasonalPeriods(stepMs: number, length: number): number[] {
  const period = stepMs === DAY ? 7 : stepMs === HOUR ? 24 : undefined;
  return period && length >= 2 * period + 1 ? [period] : [];
}

interface Band {
  point: number[];
  lower: number[];
  upper: number[];
}

function fitModel(values: readonly number[], periods: number[], horizon: number): Band {
  load();
  const model = periods.length ? MSTL.ets(periods) : new AutoETS(1, 'ZZN');
  try {
    model.fit(Float64Array.from(values));
    const forecast = model.predict(horizon, LEVEL);
    const point = [...forecast.point];
    return { point, lower: [...(forecast.intervals?.lower ?? point)], upper: [...(forecast.intervals?.upper ?? point)] };
  } finally {
    model.free();
  }
}

/**
 * How much wider the band must be to cover 80% of held-out errors (>= 1): the model is refitted
 * at three origins, each `window` points apart before the end, and the errors of all three
 * are pooled, so one calm or one stormy month does not decide the width.
 */
function calibrate(values: readonly number[], periods: number[], horizon: number): number {
  const window = Math.min(Math.max(horizon, 14), 28);
  const ratios: number[] = [];
  for (let origin = 1; origin <= CALIBRATION_ORIGINS; origin++) {
    const end = values.length - origin * window;
    if (end < Math.max(FORECAST_LIMITS.minPoints, 2 * (periods[0] ?? 0) + 1) * 2) break;
    const band = fitModel(values.slice(0, end), periods, window);
    for (let i = 0; i < window; i++) {
      const half = (band.upper[i]! - band.lower[i]!) / 2;
      ratios.push(half > 0 ? Math.abs(values[end + i]! - band.point[i]!) / half : Number.POSITIVE_INFINITY);
    }
  }
  if (ratios.length === 0) return 1;
  const q = quantileOfSorted(ratios.sort((a, b) => a - b), LEVEL);
  return Number.isFinite(q) ? Math.max(1, q) : 1;
}

/**
 * Forecasts `horizon` steps after the last point. Points must be sorted and evenly spaced
 * (aggregate them first); throws a RangeError naming the problem otherwise.
 */
export function forecast(points: readonly Point[], horizon: number): Forecast {
  if (!Number.isInteger(horizon) || horizon < 1 || horizon > FORECAST_LIMITS.maxHorizon) {
    throw new RangeError(`horizon must be a whole number of steps from 1 to ${FORECAST_LIMITS.maxHorizon}, got ${horizon}`);
  }
  const history = points.slice(-FORECAST_LIMITS.maxHistory);
  if (history.length < FORECAST_LIMITS.minPoints) {
    throw new RangeError(`a forecast needs at least ${FORECAST_LIMITS.minPoints} points, the series has ${history.length}`);
  }
  const stepMs = naturalStep(history)!;
  const values = history.map((p) => p.value);
  const periods = seasonalPeriods(stepMs, values.length);
  const band = fitModel(values, periods, horizon);
  const calibration = calibrate(values, periods, horizon);
  const last = history[history.length - 1]!.t;
  return {
    model: periods.length ? `MSTL(${periods.join(',')})+AutoETS` : 'AutoETS',
    stepMs,
    periods,
    calibration,
    points: band.point.map((p50, i) => {
      const half = ((band.upper[i]! - band.lower[i]!) / 2) * calibration;
      return { t: last + (i + 1) * stepMs, p10: p50 - half, p50, p90: p50 + half };
    }),
  };
}
