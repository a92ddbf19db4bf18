import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import type { StoredDefinition } from '../domain/metric-definition.js';
import type { TimelineEvent } from '../domain/timeline-event.js';

@ObjectType({ description: 'What a metric means, as its tenant declared it.' })
export class MetricDefinition {
  @Field(() => String) name!: string;
  @Field(() => GraphQLJSONObject, { description: '{unit, aggregation, upIsGood, formula, drivers, synonyms, description, display}: each optional; see the README (analysis reference).' }) definition!: Record<string, unknown>;
  @Field(() => String, { description: 'ISO 8601 UTC' }) updatedAt!: string;
  @Field(() => String, { description: 'Who declared it (a subject).' }) updatedBy!: string;
}

@ObjectType({ description: 'An event on the tenant\'s timeline: posted by the tenant, or recorded by the platform (content published, crawl run failed, selectors healed).' })
export class InsightEvent {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'ISO 8601 UTC' }) at!: string;
  @Field(() => String, { description: 'A short word: price_change, campaign, deploy, content_published, crawl_failed, selector_healed, …' }) kind!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true, description: 'Something to act on: a content version (content:<id>:v<n>), a crawl job or run, or what the tenant gave.' }) ref!: string | null;
  @Field(() => String, { description: 'tenant or platform' }) source!: string;
}

export const definitionView = (d: StoredDefinition): MetricDefinition => ({ name: d.name, definition: d.definition as Record<string, unknown>, updatedAt: d.updatedAt.toISOString(), updatedBy: d.updatedBy });
export const eventView = (e: TimelineEvent): InsightEvent => ({ id: e.id, at: new Date(e.at).toISOString(), kind: e.kind, title: e.title, ref: e.ref, source: e.source });
