import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { ActionService } from '../service/action-proposals.js';
import type { JobService } from '../service/jobs.js';
import { ActionProposal, InsightJob, InsightJobPage, JobStep } from './job-types.js';
import { actionView, jobView, stepView } from './views.js';

@Resolver(() => InsightJob)
export class JobResolver {
  constructor(private readonly jobs: JobService, private readonly actionService: ActionService) {}

  @Mutation(() => InsightJob, { description: 'Starts an analysis (body as POST /api/v1/insight/jobs: prompt, requesterId). The same idempotencyKey returns the same job.' })
  async createInsightJob(
    @Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<InsightJob> {
    return jobView((await this.jobs.create(ctx, input, idempotencyKey ?? undefined)).job);
  }

  @Mutation(() => InsightJob, { description: 'Cancels a PENDING job at once, a RUNNING one at its next step; 409 once it has ended.' })
  async cancelInsightJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<InsightJob> {
    return jobView(await this.jobs.cancel(ctx, jobId));
  }

  @Query(() => InsightJob)
  async insightJob(@Arg('jobId', () => ID) jobId: string, @Ctx() ctx: SvcContext): Promise<InsightJob> {
    return jobView(await this.jobs.get(ctx, jobId));
  }

  @Query(() => InsightJobPage, { description: 'The caller\'s jobs newest first (every job for reviewers and admins).' })
  async insightJobs(
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Arg('first', () => Int, { nullable: true, description: '1 to 100, default 20.' }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<InsightJobPage> {
    const page = await this.jobs.list(ctx, { ...(status !== null ? { status } : {}), ...(first !== null ? { first } : {}), ...(after !== null ? { after } : {}) });
    return { jobs: page.jobs.map(jobView), nextCursor: page.nextCursor };
  }

  @FieldResolver(() => [JobStep], { description: 'Steps after `after` (a step number), in order.' })
  async steps(@Root() job: InsightJob, @Arg('after', () => Int, { defaultValue: 0 }) after: number, @Ctx() ctx: SvcContext): Promise<JobStep[]> {
    return (await this.jobs.steps(ctx, job.jobId, after)).map(stepView);
  }

  @FieldResolver(() => [ActionProposal])
  async actions(@Root() job: InsightJob, @Ctx() ctx: SvcContext): Promise<ActionProposal[]> {
    return (await this.actionService.ofJob(ctx, job.jobId)).map(actionView);
  }
}
