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
  @Field(() => CrawlWebhook, { nullable: true, description: 'Where per-execution events go (its secret is never returned).' }) webhook!: CrawlWebhook | null;
  @Field(() => [String], { description: 'CSS selectors of detail-page elements whose text change tracking ignores (left out of the main text).' }) volatileSelectors!: string[];
}

@ObjectType({ description: 'A crawl job\'s webhook: the URL and the events posted to it once per execution, signed with the job\'s secret.' })
export class CrawlWebhook {
  @Field(() => String) url!: string;
  @Field(() => [String], { description: 'completed, failed, blocked, changed' }) events!: string[];
}

@ObjectType({ description: 'One webhook delivery of an execution\'s event: PENDING while attempts go on, DELIVERED, or FAILED after the last attempt (a dead letter).' })
export class CrawlWebhookDelivery {
  @Field(() => ID) deliveryId!: string;
  @Field(() => String) executionId!: string;
  @Field(() => String, { description: 'completed, failed, blocked or changed' }) event!: string;
  @Field(() => String, { description: 'PENDING, DELIVERED or FAILED' }) status!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true, description: 'Why the last attempt failed.' }) lastError!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC; when PENDING.' }) nextAttemptAt!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC' }) deliveredAt!: string | null;
  @Field(() => String, { description: 'ISO 8601 UTC' }) createdAt!: string;
}

@ObjectType({ description: 'A page a crawl run found to be a block page (a bot challenge, captcha, login wall, rate limit, JavaScript shell, soft 404, consent interstitial or self-refresh) instead of the site\'s content; never extracted, stored or embedded.' })
export class CrawlBlockedPage {
  @Field(() => String) url!: string;
  @Field(() => Int, { description: 'The HTTP status it answered with (block pages often come with 200).' }) status!: number;
  @Field(() => String, { description: 'challenge, captcha, access-denied, login-wall, rate-limited, javascript-required, soft-404, consent, refresh-loop or repeated-shell' }) kind!: string;
  @Field(() => String, { description: 'The detector rule that matched.' }) rule!: string;
  @Field(() => String, { description: 'What was seen, in one sentence.' }) reason!: string;
}

@ObjectType({ description: 'What changed in an item: the sentences of its page\'s main content (or its list row) removed and added. Dates, times, counters and the like do not count as changes.' })
export class CrawlItemDiff {
  @Field(() => [String], { description: 'At most 5, each at most 200 characters.' }) added!: string[];
  @Field(() => [String], { description: 'At most 5, each at most 200 characters.' }) removed!: string[];
  @Field(() => Int, { description: 'Sentences changed beyond the ones listed.' }) more!: number;
  @Field(() => Boolean, { description: 'The page changed too much to list its sentences.' }) rewritten!: boolean;
}

@ObjectType({ description: 'What a run found: items first seen, changed and unchanged, and items the job\'s previous completed run listed that this one did not.' })
export class CrawlChanges {
  @Field(() => Int) new!: number;
  @Field(() => Int) changed!: number;
  @Field(() => Int) unchanged!: number;
  @Field(() => Int) gone!: number;
}

@ObjectType({ description: 'An item a run found changed, with what changed.' })
export class CrawlChangedItem {
  @Field(() => ID) itemId!: string;
  @Field(() => String) title!: string;
  @Field(() => String) detailUrl!: string;
  @Field(() => CrawlItemDiff, { nullable: true, description: 'Null when the earlier text was not kept.' }) diff!: CrawlItemDiff | null;
}

@ObjectType({ description: 'An item the job\'s previous completed run listed and this run did not.' })
export class CrawlGoneItem {
  @Field(() => ID) itemId!: string;
  @Field(() => String) title!: string;
  @Field(() => String) detailUrl!: string;
}

@Directive('@key(fields: "executionId")')
@ObjectType({ description: 'One run of a crawl job on a worker.' })
export class CrawlExecution {
  @Field(() => ID) executionId!: string;
  @Field(() => String) jobId!: string;
  @Field(() => String, { description: 'QUEUED, RUNNING, COMPLETED, FAILED, or BLOCKED (the list page was a block page; the job\'s items are left as they were)' }) status!: string;
  @Field(() => String, { nullable: true, description: 'The worker that runs it.' }) allocatedAgent!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC' }) startedAt!: string | null;
  @Field(() => String, { nullable: true }) finishedAt!: string | null;
  @Field(() => Int) totalCount!: number;
  @Field(() => Boolean) selfHealingOccurred!: boolean;
  @Field(() => String, { nullable: true, description: 'Why it FAILED or was BLOCKED.' }) error!: string | null;
  @Field(() => Int, { description: 'Pages this run found blocked (list and detail pages).' }) blockedCount!: number;
  @Field(() => [CrawlBlockedPage], { description: 'The first 50 of them.' }) blockedPages!: CrawlBlockedPage[];
  @Field(() => CrawlChanges, { description: 'Items new, changed, unchanged and gone (all 0 for runs from before change tracking and for runs that did not complete).' }) changes!: CrawlChanges;
  @Field(() => [CrawlChangedItem], { description: 'The first 20 changed items, with what changed.' }) changedItems!: CrawlChangedItem[];
  @Field(() => [CrawlGoneItem], { description: 'The first 50 gone items.' }) goneItems!: CrawlGoneItem[];
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
  @Field(() => String, { description: 'NOT_REQUESTED, PENDING, INDEXED, FAILED, or BLOCKED (its page was a block page; chunks of an earlier good fetch stay)' }) vectorSyncStatus!: string;
  @Field(() => String, { nullable: true }) vectorId!: string | null;
  @Field(() => String, { nullable: true, description: 'Why the knowledge sync of this item FAILED or was BLOCKED (null otherwise).' }) vectorSyncError!: string | null;
  @Field(() => String, { nullable: true, description: 'In an execution\'s result: new, changed or unchanged in that run (null elsewhere, and for runs from before change tracking).' }) change!: string | null;
  @Field(() => CrawlItemDiff, { nullable: true, description: 'In an execution\'s result, for a changed item: what changed.' }) diff!: CrawlItemDiff | null;
}

@ObjectType({ description: 'What a completed execution collected.' })
export class CrawlResult {
  @Field(() => ID) executionId!: string;
  @Field(() => Int) totalCount!: number;
  @Field(() => Int) elapsedTimeMs!: number;
  @Field(() => Boolean) selfHealingOccurred!: boolean;
  @Field(() => Int, { description: 'Pages this run found blocked: detail pages whose items were not indexed.' }) blockedCount!: number;
  @Field(() => [CrawlBlockedPage], { description: 'The first 50 of them.' }) blockedPages!: CrawlBlockedPage[];
  @Field(() => CrawlChanges, { description: 'Items new, changed and unchanged in this run (each item says which, changed ones with their diff), and gone since the previous completed run.' }) changes!: CrawlChanges;
  @Field(() => [CrawlGoneItem], { description: 'The first 50 gone items.' }) goneItems!: CrawlGoneItem[];
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
  @Field(() => Int, { description: 'Failed runs that day (blocked runs included).' }) failedRuns!: number;
  @Field(() => Int, { description: 'Runs that day whose list page was a block page.' }) blockedRuns!: number;
  @Field(() => Int, { description: 'Pages the day\'s runs found blocked (list and detail pages).' }) blockedPages!: number;
}
