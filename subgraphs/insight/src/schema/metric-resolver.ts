import type { SvcContext } from '@svc/kit';
import { SvcError } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { MetricService } from '../service/metrics.js';
import { INSIGHT_TOOLS } from '../tools/mcp-tools.js';
import type { ToolContext } from '../tools/tool.js';
import { callerOf } from './caller.js';
import { MetricIngestResult, MetricInfo, MetricSeries, ToolOutput } from './metric-types.js';

@Resolver()
export class MetricResolver {
  constructor(private readonly metricService: MetricService, private readonly toolContext: (ctx: SvcContext) => ToolContext) {}

  @Mutation(() => MetricIngestResult, { description: 'Stores series points (body as POST /api/v1/insight/metrics: {series: [{name, labels, unit, points: [{timestamp, value}]}], metrics?: [{name, unit, aggregation, upIsGood, formula, drivers, synonyms, description, display}]}); a point at an existing time replaces it, a definition in metrics replaces the metric\'s. All or nothing.' })
  async ingestMetrics(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<MetricIngestResult> {
    return this.metricService.ingest(ctx, input);
  }

  @Mutation(() => MetricIngestResult, { description: 'Deletes the tenant\'s stored series of a metric (only those carrying `labels` when given) with their points: how many went. Role analyst; 404 when none matches.' })
  async deleteMetricSeries(
    @Arg('name', () => String) name: string,
    @Arg('labels', () => GraphQLJSONObject, { nullable: true }) labels: Record<string, unknown> | null,
    @Ctx() ctx: SvcContext,
  ): Promise<MetricIngestResult> {
    return this.metricService.remove(ctx, { name, ...(labels ? { labels } : {}) });
  }

  @Query(() => [MetricInfo], { description: 'Every series the analysis can read: stored, the platform\'s own figures, Prometheus.' })
  async metrics(@Ctx() ctx: SvcContext): Promise<MetricInfo[]> {
    return (await this.metricService.catalog(callerOf(ctx))).map((m) => ({
      name: m.name, labels: m.labels, unit: m.unit, source: m.source, description: m.description ?? null,
      pointCount: m.points ?? null, first: m.first?.toISOString() ?? null, last: m.last?.toISOString() ?? null, definition: (m.definition as Record<string, unknown> | undefined) ?? null,
    }));
  }

  @Query(() => [MetricSeries], { description: 'Series of a metric in a window, bucketed by step (1h, 1d, 1w) with an aggregation (sum, avg, min, max, last, count).' })
  async metricSeries(@Arg('query', () => GraphQLJSONObject, { description: '{name, labels, from, to, aggregation, step}' }) query: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<MetricSeries[]> {
    return (await this.metricService.lookup(callerOf(ctx), query)).map((s) => ({
      name: s.name, labels: s.labels, unit: s.unit ?? null, source: s.source,
      points: s.points.map((p) => ({ timestamp: new Date(p.t).toISOString(), value: p.value })),
    }));
  }

  @Query(() => ToolOutput, { description: 'Runs one analysis tool (svcinsight_list_metrics, _lookup_metric, _forecast, _simulate): what the MCP server calls.' })
  async insightTool(@Arg('name', () => String) name: string, @Arg('arguments', () => GraphQLJSONObject) args: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<ToolOutput> {
    const tool = INSIGHT_TOOLS.find((t) => t.name === name)?.tool;
    if (!tool) throw new SvcError('BAD_USER_INPUT', `No tool ${JSON.stringify(name)}; available: ${INSIGHT_TOOLS.map((t) => t.name).join(', ')}`, { errors: [{ pointer: '/name', detail: 'unknown tool' }] });
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      throw new SvcError('BAD_USER_INPUT', `Invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`, {
        status: 422,
        errors: parsed.error.issues.map((i) => ({ pointer: `/arguments/${i.path.join('/')}`, detail: i.message })),
      });
    }
    const result = await tool.run(this.toolContext(ctx), parsed.data);
    return { data: result.data as Record<string, unknown>, summary: result.summary };
  }
}
