import { analyseChange } from './analyse-change.js';
import { forecastMetric } from './forecast.js';
import { listMetrics } from './list-metrics.js';
import { lookupMetric } from './lookup-metric.js';
import { proposeAction } from './propose-action.js';
import { readBudgets } from './read-budgets.js';
import { readContent } from './read-content.js';
import { searchKnowledge } from './search-knowledge.js';
import { simulateScenario } from './simulate.js';
import type { Tool } from './tool.js';

/** Every tool of the analysis agent (one file each in tools/, named after it). */
export const TOOLS: readonly Tool[] = [analyseChange, listMetrics, lookupMetric, forecastMetric, simulateScenario, searchKnowledge, readContent, readBudgets, proposeAction] as readonly Tool[] as Tool[];

export function toolNamed(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}
