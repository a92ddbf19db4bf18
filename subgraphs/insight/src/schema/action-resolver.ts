import type { SvcContext } from '@svc/kit';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { ActionService } from '../service/action-proposals.js';
import { ActionProposal } from './job-types.js';
import { actionView } from './views.js';

@Resolver(() => ActionProposal)
export class ActionResolver {
  constructor(private readonly actions: ActionService) {}

  @Mutation(() => ActionProposal, { description: 'Approves a PROPOSED action (reviewer); it is then executed once by a worker. 409 naming the status if already decided or expired, or naming the target if it no longer exists (the proposal then expired).' })
  async approveAction(
    @Arg('actionId', () => ID) actionId: string,
    @Arg('reviewedBy', () => String, { nullable: true }) reviewedBy: string | null,
    @Arg('comment', () => String, { nullable: true }) comment: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<ActionProposal> {
    return actionView(await this.actions.approve(ctx, actionId, { ...(reviewedBy !== null ? { reviewedBy } : {}), ...(comment !== null ? { comment } : {}) }));
  }

  @Mutation(() => ActionProposal, { description: 'Rejects a PROPOSED action (reviewer). 409 naming the status if already decided or expired.' })
  async rejectAction(
    @Arg('actionId', () => ID) actionId: string,
    @Arg('reviewedBy', () => String, { nullable: true }) reviewedBy: string | null,
    @Arg('comment', () => String, { nullable: true }) comment: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<ActionProposal> {
    return actionView(await this.actions.reject(ctx, actionId, { ...(reviewedBy !== null ? { reviewedBy } : {}), ...(comment !== null ? { comment } : {}) }));
  }

  @Query(() => ActionProposal)
  async actionProposal(@Arg('actionId', () => ID) actionId: string, @Ctx() ctx: SvcContext): Promise<ActionProposal> {
    return actionView(await this.actions.get(ctx, actionId));
  }

  @Query(() => [ActionProposal], { description: 'Proposed actions newest first, by status, job and ids (reviewers see all, analysts those of their jobs).' })
  async actionProposals(
    @Arg('status', () => String, { nullable: true }) status: string | null,
    @Arg('jobId', () => ID, { nullable: true }) jobId: string | null,
    @Arg('first', () => Int, { nullable: true, description: '1 to 200, default 50.' }) first: number | null,
    @Arg('actionIds', () => [ID], { nullable: true, description: 'Only these actions (at most 200).' }) actionIds: string[] | null,
    @Ctx() ctx: SvcContext,
  ): Promise<ActionProposal[]> {
    return (await this.actions.list(ctx, { ...(status !== null ? { status } : {}), ...(jobId !== null ? { jobId } : {}), ...(first !== null ? { first } : {}) }, actionIds ?? undefined)).map(actionView);
  }
}
