import { GraphQLJSONObject } from 'graphql-scalars';
import { Directive, Field, Float, ID, Int, ObjectType } from 'type-graphql';

@Directive('@key(fields: "jobId")')
@ObjectType({ description: 'A crawl job: a target page, selectors, and a schedule (cron) or one run.' })
export class CrawlJob {
  @Field(() => ID) jobId!: string;
  @Field(() => String) jobName!: string;
  @Field(() => String, { description: 'SCHEDULED, PAUSED, COMPLETED (a one-time job that ran) or DELETED' }) status!: string;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC' }) nextRunAt!: string | null;
  @Field(() => String, { description: 'ISO 8601 UTC' }) createdAt!: string;
  @Field(() => String) targetUrl!: string;
  @Field(() => String, { nullable: true }) cronExpression!: string | null;
  @Field(() => GraphQLJSONObject, { description: 'listRow, title, publishedAt, link (current version).' }) selectors!: Record<string, string>;
  @Field(() => Int, { description: 'Raised each time self-healing adopts new selectors or changeCrawlSelectors replaces them.' }) selectorVersion!: number;
  @Field(() => Boolean) enableRagSync!: boolean;
  @Field(() => GraphQLJSONObject, { nullable: true }) ragConfig!: Record<string, unknown> | null;
}

@Directive('@key(fields: "executionId")')
@ObjectType({ description: 'One run of a crawl job on a worker.' })
export class CrawlExecution {
  @Field(() => ID) executionId!: string;
  @Field(() => String) jobId!: string;
  @Field(() => String, { description: 'QUEUED, RUNNING, COMPLETED or FAILED' }) status!: string;
  @Field(() => String, { nullable: true, description: 'The worker that runs it.' }) allocatedAgent!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC' }) startedAt!: string | null;
  @Field(() => String, { nullable: true }) finishedAt!: string | null;
  @Field(() => Int) totalCount!: number;
  @Field(() => Boolean) selfHealingOccurred!: boolean;
  @Field(() => String, { nullable: true, description: 'Why it FAILED.' }) error!: string | null;
}

@ObjectType({ description: 'One selector set a crawl job has used: version 1 as created, then each healing or change.' })
export class CrawlSelectorVersion {
  @Field(() => Int) version!: number;
  @Field(() => GraphQLJSONObject) selectors!: Record<string, string>;
  @Field(() => String, { description: '`created`, `changed` (changeCrawlSelectors) or `healed during execution <executionId>`.' }) reason!: string;
  @Field(() => String, { description: 'ISO 8601 UTC' }) createdAt!: string;
}

@Directive('@key(fields: "id")')
@ObjectType({ description: 'An item collected from a list page, deduplicated per job by detailUrl.' })
export class CrawlItem {
  @Field(() => ID) id!: string;
  @Field(() => String) title!: string;
  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' }) publishedAt!: string | null;
  @Field(() => String) detailUrl!: string;
  @Field(() => String, { description: 'NOT_REQUESTED, PENDING, INDEXED or FAILED' }) vectorSyncStatus!: string;
  @Field(() => String, { nullable: true }) vectorId!: string | null;
  @Field(() => String, { nullable: true, description: 'Why the knowledge sync of this item FAILED (null otherwise).' }) vectorSyncError!: string | null;
}

@ObjectType({ description: 'What a completed execution collected.' })
export class CrawlResult {
  @Field(() => ID) executionId!: string;
  @Field(() => Int) totalCount!: number;
  @Field(() => Int) elapsedTimeMs!: number;
  @Field(() => Boolean) selfHealingOccurred!: boolean;
  @Field(() => [CrawlItem]) items!: CrawlItem[];
}

@ObjectType({ description: 'A knowledge-base chunk close to the query.' })
export class KnowledgeHit {
  @Field(() => ID) chunkId!: string;
  @Field(() => String) itemId!: string;
  @Field(() => String) title!: string;
  @Field(() => String) url!: string;
  @Field(() => String, { nullable: true }) category!: string | null;
  @Field(() => String) content!: string;
  @Field(() => Float, { description: 'Cosine similarity (1 = same direction).' }) score!: number;
}

@ObjectType({ description: 'What one job\'s runs collected on one UTC day (a day whose runs all failed collected 0 items).' })
export class CrawlItemDay {
  @Field(() => ID) jobId!: string;
  @Field(() => String) jobName!: string;
  @Field(() => String) tenantId!: string;
  @Field(() => String, { description: 'YYYY-MM-DD (UTC)' }) day!: string;
  @Field(() => Int, { description: 'Items the day\'s completed runs collected (each run counts its whole list).' }) items!: number;
  @Field(() => Int, { description: 'Items seen for the first time that day.' }) newItems!: number;
  @Field(() => Int, { description: 'Completed runs that day.' }) executions!: number;
  @Field(() => Int, { description: 'Failed runs that day.' }) failedRuns!: number;
}
