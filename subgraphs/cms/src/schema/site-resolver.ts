import { canUseSite, requireRole, type SvcContext } from '@svc/kit';
import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Sites } from '../service/sites.js';
import { CreateSiteInput, Site } from './site-types.js';

@Resolver(() => Site)
export class SiteResolver {
  constructor(private readonly service: Sites) {}

  @Query(() => [Site], { description: 'Sites the token grants.' })
  async sites(@Ctx() ctx: SvcContext): Promise<Site[]> {
    const principal = requireRole(ctx.principal, 'editor');
    return (await this.service.list()).filter((s) => canUseSite(principal, s.siteKey));
  }

  @Mutation(() => Site, { description: 'Creates a site (admin).' })
  createSite(@Arg('input', () => CreateSiteInput) input: CreateSiteInput, @Ctx() ctx: SvcContext): Promise<Site> {
    requireRole(ctx.principal);
    return this.service.create(input);
  }
}
