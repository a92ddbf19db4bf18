import { canUseSite, requireRole, type SvcContext } from '@svc/kit';
import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { fallbackChain } from '../domain/locale.js';
import type { Site as SiteRecord } from '../domain/site.js';
import type { Sites } from '../service/sites.js';
import { CreateSiteInput, Site, SiteLocale, SiteLocalesInput } from './site-types.js';

@Resolver(() => Site)
export class SiteResolver {
  constructor(private readonly service: Sites) {}

  @Query(() => [Site], { description: 'Sites the token grants.' })
  async sites(@Ctx() ctx: SvcContext): Promise<SiteRecord[]> {
    const principal = requireRole(ctx.principal, 'editor');
    return (await this.service.list()).filter((s) => canUseSite(principal, s.siteKey));
  }

  @Mutation(() => Site, { description: 'Creates a site (admin).' })
  createSite(@Arg('input', () => CreateSiteInput) input: CreateSiteInput, @Ctx() ctx: SvcContext): Promise<SiteRecord> {
    requireRole(ctx.principal);
    return this.service.create(input);
  }

  @Mutation(() => Site, { description: 'Replaces the languages a site delivers in (admin of the site): BCP 47 tags, a default, one fallback each (no loops). Purges the site from every cache. 409 locale-in-use for a locale left out that still has contents.' })
  setSiteLocales(@Arg('siteKey', () => String) siteKey: string, @Arg('input', () => SiteLocalesInput) input: SiteLocalesInput, @Ctx() ctx: SvcContext): Promise<SiteRecord> {
    return this.service.setLocales(ctx.principal, siteKey, input);
  }

  @FieldResolver(() => [SiteLocale])
  locales(@Root() site: SiteRecord): SiteLocale[] {
    return site.locales.map((l) => ({ tag: l.tag, fallback: l.fallback, chain: fallbackChain(site, l.tag) }));
  }
}
