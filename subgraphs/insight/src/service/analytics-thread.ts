import { seededRandom } from '@svc/kit/random';
import type { Point } from '../domain/metric.js';
import { analyse, type AnalysisInput } from '../engine/analyse.js';
import { forecast, type ForecastPoint } from '../engine/forecast.js';
import { simulate, type Scenario } from '../engine/simulate.js';

/**
 * The CPU-heavy analytics (augurs fits, Monte Carlo runs) as a worker thread's tasks, so a
 * forecast of tens of milliseconds never stalls the service's event loop. Imports only the
 * engine's maths and kit's generator, so a thread starts quickly.
 */
export type AnalyticsTask =
  | { kind: 'forecast'; points: readonly Point[]; horizon: number }
  | { kind: 'simulate'; baseline: readonly ForecastPoint[]; scenario: Scenario }
  | { kind: 'analyse'; input: AnalysisInput };

export default function run(task: AnalyticsTask) {
  switch (task.kind) {
    case 'forecast':
      return forecast(task.points, task.horizon);
    case 'simulate':
      return simulate(task.baseline, task.scenario, seededRandom(task.scenario.seed));
    case 'analyse':
      return analyse(task.input);
  }
}
