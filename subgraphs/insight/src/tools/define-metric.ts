import { definitionRecordSchema } from '../contract.js';
import { metricDefinitionSchema, namedDefinitionSchema } from '../domain/metric-definition.js';
import { callPlatform, type ToolOutput } from './insight-tool-call.js';
import type { McpTool } from './mcp-tool.js';

/**
 * Declaring what a metric means, over MCP: `svcinsight_define_metric` runs the `defineMetric`
 * mutation through the router (as `PUT /api/v1/insight/metrics/{name}/definition` does), so
 * the insight service checks the role and the definition as for any client. Its input schema
 * is the one the service validates with (`namedDefinitionSchema`), so the MCP SDK refuses a bad
 * definition before any call, naming the field. No tool of the analysis agent: an analysis reads
 * the tenant's catalog, it never writes it.
 */

const NAME = 'svcinsight_define_metric';
/** Its text is in schema/operations/insight-mcp.graphql. */
const OPERATION = 'InsightMcpDefineMetric';

interface DefinitionRecord {
  name: string;
  definition: Record<string, unknown>;
  updatedAt: string;
  updatedBy: string;
}

function result(data: Record<string, unknown>): ToolOutput | undefined {
  const record = data.defineMetric as DefinitionRecord | null | undefined;
  if (!record || typeof record !== 'object' || typeof record.definition !== 'object' || record.definition === null) return undefined;
  // In the order the definition's schema lists them (the store returns them in its own).
  const members = Object.keys(metricDefinitionSchema.shape).filter((m) => m in record.definition);
  return {
    data: { ...record },
    summary: `${record.name} is defined${members.length ? ` (${members.join(', ')})` : ' (every member left to its default)'}, by ${record.updatedBy} at ${record.updatedAt}; the next analysis reads it, and svcinsight_list_metrics shows it with the metric's series.`,
  };
}

export const defineMetricMcpTool: McpTool = {
  name: NAME,
  title: 'Declare what a metric means',
  description:
    'Declares (replaces as a whole) what a metric means in the tenant, for the analysis: unit ({kind: currency, code} | {kind: count, noun?} | {kind: ratio} | {kind: percent}: its display format), aggregation over a period (sum | mean | last | {ratio: {numerator, denominator}}), upIsGood, formula ({product: [names]} | {sum: [names]}: an additive composition), drivers ([{metric, labels?, lagDays 0-90?, elasticity?}]), synonyms, description, display ({name?, labels?: {label: words}, values?: {label: {value: words}}}: the words reports use instead of the names). Every member is optional (a default applies); unknown members are refused; a formula, driver or ratio may not name the metric itself; the series need not exist yet. Needs the analyst role.',
  inputSchema: namedDefinitionSchema,
  outputSchema: definitionRecordSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  call: (deps, args) => callPlatform(deps, { tool: NAME, operation: OPERATION, variables: { name: args.name, definition: args.definition }, roles: 'the analyst role', result }),
};
