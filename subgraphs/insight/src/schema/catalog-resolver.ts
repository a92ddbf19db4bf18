import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { CatalogService } from '../service/metric-catalog.js';
import type { TimelineService } from '../service/timeline.js';
import { callerOf } from './caller.js';
import { definitionView, eventView, InsightEvent, MetricDefinition } from './catalog-types.js';

/** What the tenant's metrics mean, and its timeline of events. */
@Resolver()
export class CatalogResolver {
  constructor(private readonly catalog: CatalogService, private readonly timeline: TimelineService) {}

  @Mutation(() => MetricDefinition, { description: 'Declares (replaces) what a metric means in the tenant: {unit, aggregation, upIsGood, formula, drivers, synonyms, description} (body as PUT /api/v1/insight/metrics/{name}/definition). Role analyst.' })
  async defineMetric(@Arg('name', () => String) name: string, @Arg('definition', () => GraphQLJSONObject) definition: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<MetricDefinition> {
    return definitionView(await this.catalog.define(ctx, name, definition));
  }

  @Query(() => MetricDefinition, { description: 'A metric\'s declared definition; NOT_FOUND when the tenant declared none.' })
  async metricDefinition(@Arg('name', () => String) name: string, @Ctx() ctx: SvcContext): Promise<MetricDefinition> {
    return definitionView(await this.catalog.definition(ctx, name));
  }

  @Query(() => [MetricDefinition], { description: 'Every metric definition the tenant declared, by name.' })
  async metricDefinitions(@Ctx() ctx: SvcContext): Promise<MetricDefinition[]> {
    return (await this.catalog.definitions(ctx)).map(definitionView);
  }

  @Mutation(() => InsightEvent, { description: 'Records an event on the tenant\'s timeline: {at, kind, title, ref?} (body as POST /api/v1/insight/events). Role analyst.' })
  async recordEvent(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<InsightEvent> {
    return eventView(await this.timeline.record(ctx, input));
  }

  @Query(() => [InsightEvent], { description: 'The tenant\'s events and the platform\'s (content published, crawl runs failed, selectors healed) in [from, to), oldest first, at most 1000; default the last 90 days.' })
  async events(
    @Arg('from', () => String, { nullable: true, description: 'RFC 3339; default 90 days before to' }) from: string | null,
    @Arg('to', () => String, { nullable: true, description: 'RFC 3339; default now' }) to: string | null,
    @Arg('kind', () => String, { nullable: true }) kind: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<InsightEvent[]> {
    const query = { ...(from !== null ? { from } : {}), ...(to !== null ? { to } : {}), ...(kind !== null ? { kind } : {}) };
    return (await this.timeline.list(callerOf(ctx), query)).map(eventView);
  }
}
