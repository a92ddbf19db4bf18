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

type DataOf<T> = T extends Tool<infer _S, infer D> ? D : never;

/** What each agent tool's result holds, by the tool's name, as its `run` returns it: the report reads results typed by it. */
export interface ToolData {
  analyse_change: DataOf<typeof analyseChange>;
  list_metrics: DataOf<typeof listMetrics>;
  lookup_metric: DataOf<typeof lookupMetric>;
  forecast_metric: DataOf<typeof forecastMetric>;
  simulate_scenario: DataOf<typeof simulateScenario>;
  search_knowledge: DataOf<typeof searchKnowledge>;
  read_content: DataOf<typeof readContent>;
  read_budgets: DataOf<typeof readBudgets>;
  propose_action: DataOf<typeof proposeAction>;
}

/** Whether `name` is one of the agent's tools (so its stored result has that tool's `ToolData`). */
export function isAgentTool(name: string): name is keyof ToolData {
  return TOOLS.some((t) => t.name === name);
}

/** Every tool of the analysis agent (one file each in tools/, named after it). */
export const TOOLS: readonly Tool[] = [analyseChange, listMetrics, lookupMetric, forecastMetric, simulateScenario, searchKnowledge, readContent, readBudgets, proposeAction] as readonly Tool[] as Tool[];

export function toolNamed(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}
