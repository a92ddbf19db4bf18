import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType()
export class MetricPoint {
  @Field(() => String, { description: 'ISO 8601 UTC' }) timestamp!: string;
  @Field(() => Float) value!: number;
}

@ObjectType({ description: 'A series: a metric name and labels, with its points in the window asked for.' })
export class MetricSeries {
  @Field(() => String) name!: string;
  @Field(() => GraphQLJSONObject) labels!: Record<string, string>;
  @Field(() => String, { nullable: true }) unit!: string | null;
  @Field(() => String, { description: 'store, platform or prometheus' }) source!: string;
  @Field(() => [MetricPoint]) points!: MetricPoint[];
}

@ObjectType({ description: 'A series the analysis can read.' })
export class MetricInfo {
  @Field(() => String) name!: string;
  @Field(() => GraphQLJSONObject) labels!: Record<string, string>;
  @Field(() => String, { nullable: true }) unit!: string | null;
  @Field(() => String) source!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => Int, { nullable: true }) pointCount!: number | null;
  @Field(() => String, { nullable: true }) first!: string | null;
  @Field(() => String, { nullable: true }) last!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'What the tenant declared the metric means (as metricDefinition\'s definition); null when undeclared.' }) definition!: Record<string, unknown> | null;
}

@ObjectType()
export class MetricIngestResult {
  @Field(() => Int) series!: number;
  @Field(() => Int) points!: number;
}

@ObjectType({ description: 'A tool\'s answer: its data as JSON and a sentence about it.' })
export class ToolOutput {
  @Field(() => GraphQLJSONObject) data!: Record<string, unknown>;
  @Field(() => String) summary!: string;
}
