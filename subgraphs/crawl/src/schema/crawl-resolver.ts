import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { CrawlService } from '../service/crawl-service.js';
import { CrawlExecution, CrawlJob, CrawlResult } from './types.js';
import { executionView, itemView, jobView } from './views.js';

@Resolver()
export class CrawlResolver {
  constructor(private readonly crawl: CrawlService) {}

  @Mutation(() => CrawlJob, { description: 'Registers a crawl job (body as POST /api/v1/crawl/jobs). Without cronExpression it is a one-time job, run at runAt or at once.' })
  async createCrawlJob(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<CrawlJob> {
    return jobView(await this.crawl.create(ctx, input));
  }

  @Mutation(() => CrawlExecution, { description: 'Runs the job now on a worker; answers once a worker has locked the run.' })
  async triggerCrawlJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<CrawlExecution> {
    return executionView(await this.crawl.trigger(ctx, jobId));
  }

  @Query(() => CrawlResult, { description: 'Items of a COMPLETED execution (409 while it is not).' })
  async crawlResult(@Arg('executionId', () => ID) executionId: string, @Ctx() ctx: SvcContext): Promise<CrawlResult> {
    const { execution, items } = await this.crawl.result(ctx, executionId);
    return { executionId: execution.id, totalCount: items.length, elapsedTimeMs: execution.elapsedMs ?? 0, selfHealingOccurred: execution.selfHealingOccurred, items: items.map(itemView) };
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
