import { analyseChange } from './analyse-change.js';
import { forecastMetric } from './forecast-metric.js';
import { listMetrics } from './list-metrics.js';
import { lookupMetric } from './lookup-metric.js';
import { readBudgets } from './read-budgets.js';
import { readContent } from './read-content.js';
import { searchKnowledge } from './search-knowledge.js';
import { simulateScenario } from './simulate-scenario.js';
import type { Tool } from './tool.js';

/** Every tool of the analysis agent, by name. */
export const TOOLS: readonly Tool[] = [analyseChange, listMetrics, lookupMetric, forecastMetric, simulateScenario, searchKnowledge, readContent, readBudgets] as readonly Tool[] as Tool[];

export function toolNamed(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The tools the MCP server offers, by their MCP names. */
export const MCP_TOOLS: Readonly<Record<string, Tool>> = {
  svcinsight_list_metrics: listMetrics as unknown as Tool,
  svcinsight_lookup_metric: lookupMetric as unknown as Tool,
  svcinsight_forecast: forecastMetric as unknown as Tool,
  svcinsight_simulate: simulateScenario as unknown as Tool,
};
