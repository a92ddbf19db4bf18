import { Field, Float, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Outcome of purging one cache layer.' })
export class PurgeLayerResult {
  @Field(() => String, { description: 'redis, memory or edge' }) layer!: string;
  @Field(() => String, { description: 'Which cache: the Redis key prefix or the edge purge URL.' }) target!: string;
  @Field(() => Boolean) ok!: boolean;
  @Field(() => String) detail!: string;
  @Field(() => Float) durationMs!: number;
}

@ObjectType()
export class PurgeReport {
  @Field(() => String) siteKey!: string;
  @Field(() => String) contentSlug!: string;
  @Field(() => String) surrogateKey!: string;
  @Field(() => String, { description: 'ISO 8601 UTC' }) purgedAt!: string;
  @Field(() => [PurgeLayerResult]) layers!: PurgeLayerResult[];
}
