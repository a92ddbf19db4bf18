import { SIMULATION_LIMITS } from '../domain/scenario-limits.js';
import { normal, quantileOfSorted, Z90 } from './quantiles.js';
import type { ForecastPoint } from './forecast.js';

export interface Scenario {
  /** Relative change of the driver, e.g. 0.2 for +20%. Must be above -1. */
  driverChange: number;
  /** Elasticity of the target to the driver, and its uncertainty (0 when given by a person). */
  elasticity: { value: number; standardError: number };
  /** Monte Carlo runs; default 2000. */
  runs?: number;
  seed: number;
}

export interface Quantiles {
  p10: number;
  p50: number;
  p90: number;
}

export interface Simulation {
  /** Per step: the target under the scenario. */
  points: (Quantiles & { t: number })[];
  /** The target summed over the horizon, under the scenario. */
  total: Quantiles;
  /** The scenario's total minus the baseline's median total: the expected impact. */
  impact: Quantiles;
  baselineTotal: number;
  runs: number;
}


/**
 * A seeded Monte Carlo what-if over a baseline forecast. Each run draws an elasticity from
 * N(value, standardError) and, for every step, the target from the baseline's distribution
 * (normal, its p10-p90 band being ±1.28σ) scaled by (1 + driverChange)^elasticity. The same
 * seed gives the same result; `random` is a seeded uniform source.
 */
export function simulate(baseline: readonly ForecastPoint[], scenario: Scenario, random: () => number): Simulation {
  const runs = scenario.runs ?? 2000;
  if (!(scenario.driverChange > -1)) throw new RangeError(`driverChange must be above -100%, got ${scenario.driverChange * 100}%`);
  if (!Number.isInteger(runs) || runs < SIMULATION_LIMITS.minRuns || runs > SIMULATION_LIMITS.maxRuns) {
    throw new RangeError(`runs must be a whole number from ${SIMULATION_LIMITS.minRuns} to ${SIMULATION_LIMITS.maxRuns}, got ${runs}`);
  }
  const steps = baseline.length;
  const perStep: Float64Array[] = Array.from({ length: steps }, () => new Float64Array(runs));
  const totals = new Float64Array(runs);
  const logChange = Math.log1p(scenario.driverChange);
  for (let r = 0; r < runs; r++) {
    const beta = scenario.elasticity.value + scenario.elasticity.standardError * normal(random);
    const factor = Math.exp(beta * logChange);
    let total = 0;
    for (let s = 0; s < steps; s++) {
      const b = baseline[s]!;
      const sigma = (b.p90 - b.p10) / (2 * Z90);
      const value = (b.p50 + sigma * normal(random)) * factor;
      perStep[s]![r] = value;
      total += value;
    }
    totals[r] = total;
  }
  const q = (values: Float64Array): Quantiles => {
    const sorted = Array.from(values).sort((a, b) => a - b);
    return { p10: quantileOfSorted(sorted, 0.1), p50: quantileOfSorted(sorted, 0.5), p90: quantileOfSorted(sorted, 0.9) };
  };
  const baselineTotal = baseline.reduce((sum, b) => sum + b.p50, 0);
  const total = q(totals);
  return {
    points: baseline.map((b, s) => ({ t: b.t, ...q(perStep[s]!) })),
    total,
    impact: { p10: total.p10 - baselineTotal, p50: total.p50 - baselineTotal, p90: total.p90 - baselineTotal },
    baselineTotal,
    runs,
  };
}
