import { IDEMPOTENCY_KEY_DOC, type SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { CrawlService } from '../service/crawl-service.js';
import { CrawlExecution, CrawlItemDay, CrawlJob, CrawlResult, CrawlSelectorVersion, CrawlWebhookDelivery, KnowledgeHit } from './types.js';
import { deliveryView, executionView, itemView, jobView } from './views.js';

@Resolver()
export class CrawlResolver {
  constructor(private readonly crawl: CrawlService) {}

  @Mutation(() => CrawlJob, { description: 'Registers a crawl job (body as POST /api/v1/crawl/jobs). Without cronExpression it is a one-time job, run at runAt or at once.' })
  async createCrawlJob(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<CrawlJob> {
    return jobView(await this.crawl.create(ctx, input));
  }

  @Mutation(() => CrawlExecution, { description: 'Runs the job now on a worker; answers once a worker has locked the run.' })
  async triggerCrawlJob(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<CrawlExecution> {
    return executionView(await this.crawl.trigger(ctx, jobId, idempotencyKey));
  }

  @Mutation(() => CrawlJob, { description: 'Replaces the job\'s selectors (validated as createCrawlJob\'s) as its next selector version; stored fingerprints are dropped and refreshed by the next good run.' })
  async changeCrawlSelectors(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('selectors', () => GraphQLJSONObject) selectors: Record<string, unknown>,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<CrawlJob> {
    return jobView(await this.crawl.changeSelectors(ctx, jobId, selectors, idempotencyKey));
  }

  @Query(() => CrawlResult, { description: 'Items of a COMPLETED execution (409 while it is not).' })
  async crawlResult(@Arg('executionId', () => ID) executionId: string, @Ctx() ctx: SvcContext): Promise<CrawlResult> {
    const { execution, items } = await this.crawl.result(ctx, executionId);
    return {
      executionId: execution.id,
      totalCount: items.length,
      elapsedTimeMs: execution.elapsedMs ?? 0,
      selfHealingOccurred: execution.selfHealingOccurred,
      blockedCount: execution.blockedCount,
      blockedPages: execution.blockedPages.map((b) => ({ ...b })),
      changes: { ...execution.changes },
      goneItems: execution.goneItems.map((g) => ({ ...g })),
      items: items.map(itemView),
    };
  }

  @Query(() => [KnowledgeHit], { description: 'Semantic search in the tenant\'s knowledge base (chunks of synced crawl items).' })
  async searchKnowledge(
    @Arg('query', () => String) query: string,
    @Arg('category', () => String, { nullable: true }) category: string | null,
    @Arg('topK', () => Int, { nullable: true, description: 'Default 5, at most 50.' }) topK: number | null,
    @Arg('model', () => String, { nullable: true, description: 'Embedding model; default svc-local-embedding.' }) model: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<KnowledgeHit[]> {
    const hits = await this.crawl.searchKnowledge(ctx, query, { category, topK, model });
    return hits.map((h) => ({ chunkId: h.chunkId, itemId: h.itemId, title: h.title, url: h.url, category: h.category, content: h.content, score: h.score }));
  }

  @Query(() => CrawlJob)
  async crawlJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<CrawlJob> {
    return jobView(await this.crawl.get(ctx, jobId));
  }

  @Query(() => [CrawlJob], { description: 'The tenant\'s jobs, newest first.' })
  async crawlJobs(@Arg('limit', () => Int, { defaultValue: 100 }) limit: number, @Ctx() ctx: SvcContext): Promise<CrawlJob[]> {
    return (await this.crawl.list(ctx, limit)).map(jobView);
  }

  @Query(() => CrawlExecution)
  async crawlExecution(@Arg('executionId', () => ID) executionId: string, @Ctx() ctx: SvcContext): Promise<CrawlExecution> {
    return executionView(await this.crawl.execution(ctx, executionId));
  }

  @Query(() => [CrawlExecution], { description: 'A job\'s executions, newest first.' })
  async crawlExecutions(@Arg('jobId', () => ID) jobId: string, @Arg('limit', () => Int, { defaultValue: 50 }) limit: number, @Ctx() ctx: SvcContext): Promise<CrawlExecution[]> {
    return (await this.crawl.executions(ctx, jobId, limit)).map(executionView);
  }

  @Query(() => [CrawlSelectorVersion], { description: 'The selector sets a job has used, newest first: what a healing replaced stays readable, to change it back.' })
  async crawlSelectorVersions(@Arg('jobId', () => ID) jobId: string, @Arg('limit', () => Int, { defaultValue: 20, description: 'At most 100.' }) limit: number, @Ctx() ctx: SvcContext): Promise<CrawlSelectorVersion[]> {
    return (await this.crawl.selectorVersions(ctx, jobId, limit)).map((v) => ({ version: v.version, selectors: { ...v.selectors }, reason: v.reason, createdAt: v.createdAt.toISOString() }));
  }

  @Query(() => [CrawlWebhookDelivery], { description: 'A job\'s webhook deliveries, newest first; status FAILED lists its dead letters (deliveries that failed every attempt).' })
  async crawlWebhookDeliveries(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('status', () => String, { nullable: true, description: 'PENDING, DELIVERED or FAILED; all when absent.' }) status: string | null,
    @Arg('limit', () => Int, { defaultValue: 50, description: 'At most 500.' }) limit: number,
    @Ctx() ctx: SvcContext,
  ): Promise<CrawlWebhookDelivery[]> {
    return (await this.crawl.webhookDeliveries(ctx, jobId, status ?? null, limit)).map(deliveryView);
  }

  @Query(() => [CrawlItemDay], {
    description: 'Items per job and UTC day in [from, to) (at most 1,100 days), of the tenant in X-Svc-Tenant-Id or of every tenant the token grants.',
  })
  crawlItemCounts(
    @Arg('from', () => Date) from: Date,
    @Arg('to', () => Date) to: Date,
    @Arg('jobId', () => ID, { nullable: true }) jobId: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<CrawlItemDay[]> {
    return this.crawl.dailyItems(ctx, { from, to, jobId: jobId ?? undefined });
  }

  @Mutation(() => CrawlJob)
  async pauseCrawlJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<CrawlJob> {
    return jobView(await this.crawl.pause(ctx, jobId));
  }

  @Mutation(() => CrawlJob)
  async resumeCrawlJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<CrawlJob> {
    return jobView(await this.crawl.resume(ctx, jobId));
  }

  @Mutation(() => CrawlJob)
  async deleteCrawlJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<CrawlJob> {
    return jobView(await this.crawl.remove(ctx, jobId));
  }
}
