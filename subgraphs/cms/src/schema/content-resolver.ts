import { IDEMPOTENCY_KEY_DOC, type SvcContext } from '@svc/kit';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Content as ContentRecord } from '../domain/content.js';
import type { Authoring } from '../service/authoring.js';
import type { ContentDelivery } from '../service/delivery.js';
import { PREVIEW_TTL_BOUNDS, type Previews } from '../service/preview.js';
import type { Publishing } from '../service/publishing.js';
import type { CachePurge } from '../service/purge.js';
import { Content, ContentTranslation, CreateContentInput, Delivery, PreviewLink, PreviewSecretRotation, UpdateDraftInput } from './content-types.js';
import { PurgeReport } from './purge-types.js';

/** The use cases behind the content operations. */
export interface ContentServices {
  delivery: ContentDelivery;
  authoring: Authoring;
  publishing: Publishing;
  purge: CachePurge;
  previews: Previews;
}

@Resolver(() => Content)
export class ContentResolver {
  constructor(private readonly services: ContentServices) {}

  @Query(() => Delivery, { description: 'Latest published version of a content by slug, in the best locale for locale or acceptLanguage along the fallback chain (field by field). Site from the argument or the X-Svc-Site-Key header. With preview (a token from createPreviewLink) the draft version the token names instead, never cached; the site then comes from the token.' })
  deliveredContent(
    @Arg('slug', () => String) slug: string,
    @Arg('siteKey', () => String, { nullable: true }) siteKey: string | null,
    @Arg('locale', () => String, { nullable: true, description: 'A BCP 47 tag; looked up (RFC 4647) among the site\'s locales; wins over acceptLanguage.' }) locale: string | null | undefined,
    @Arg('acceptLanguage', () => String, { nullable: true, description: 'An Accept-Language header value, negotiated by RFC 4647 lookup against the site\'s locales.' }) acceptLanguage: string | null | undefined,
    @Arg('preview', () => String, { nullable: true, description: 'A preview token: 401 when malformed, forged, revoked or expired; 403 for another content; 409 once its version was published.' }) preview: string | null | undefined,
    @Ctx() ctx: SvcContext,
  ): Promise<Delivery> {
    // Left out, the argument is undefined; null says the same.
    if (typeof preview === 'string') return this.services.previews.preview(slug, preview, siteKey ?? ctx.siteKey);
    return this.services.delivery.deliver(siteKey ?? ctx.siteKey, slug, { locale, acceptLanguage });
  }

  @FieldResolver(() => [ContentTranslation], { description: 'Every locale of this content, this one included, by locale.' })
  translations(@Root() content: ContentRecord): Promise<ContentTranslation[]> {
    return this.services.authoring.translations(content);
  }

  @Query(() => Content, { description: 'An authored content with its versions (editor or admin of its site).' })
  content(@Arg('id', () => ID) id: string, @Ctx() ctx: SvcContext): Promise<Content> {
    return this.services.authoring.get(ctx.principal, id);
  }

  @Query(() => [Content], { description: 'Every content of a site, by slug (each locale of a content is one); with locale, those of that locale only.' })
  contents(
    @Arg('siteKey', () => String) siteKey: string,
    @Arg('locale', () => String, { nullable: true }) locale: string | null | undefined,
    @Ctx() ctx: SvcContext,
  ): Promise<Content[]> {
    return this.services.authoring.list(ctx.principal, siteKey, locale);
  }

  @Mutation(() => Content, { description: 'Creates a content with a DRAFT version 1.' })
  createContent(@Arg('input', () => CreateContentInput) input: CreateContentInput, @Ctx() ctx: SvcContext): Promise<Content> {
    return this.services.authoring.create(ctx.principal, input);
  }

  @Mutation(() => Content, { description: 'Edits the draft, creating a new draft version when the latest version is not a draft. baseVersion guards against lost updates (409).' })
  updateContentDraft(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateDraftInput) input: UpdateDraftInput,
    @Arg('baseVersion', () => Int, { nullable: true }) baseVersion: number | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<Content> {
    return this.services.authoring.updateDraft(ctx.principal, id, input, baseVersion, idempotencyKey);
  }

  @Mutation(() => Content, { description: 'Makes a version live (default: the latest) and purges the caches. Publishing an older version rolls back.' })
  publishContent(
    @Arg('id', () => ID) id: string,
    @Arg('version', () => Int, { nullable: true }) version: number | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<Content> {
    return this.services.publishing.publish(ctx.principal, id, version, idempotencyKey);
  }

  @Mutation(() => Content, { description: 'Takes the live version down; delivery answers 404 afterwards.' })
  unpublishContent(@Arg('id', () => ID) id: string, @Ctx() ctx: SvcContext): Promise<Content> {
    return this.services.publishing.unpublish(ctx.principal, id);
  }

  @Mutation(() => Content, { description: 'Publishes a version (default: the latest) at a future time, by a durable job that survives restarts.' })
  scheduleContentPublish(
    @Arg('id', () => ID) id: string,
    @Arg('at', () => Date) at: Date,
    @Arg('version', () => Int, { nullable: true }) version: number | null,
    @Ctx() ctx: SvcContext,
  ): Promise<Content> {
    return this.services.publishing.schedulePublish(ctx.principal, id, at, version);
  }

  @Mutation(() => Content)
  cancelScheduledPublish(@Arg('id', () => ID) id: string, @Ctx() ctx: SvcContext): Promise<Content> {
    return this.services.publishing.cancelSchedule(ctx.principal, id);
  }

  @Mutation(() => Content, { description: 'Copies an earlier version into the draft as a new version; with publish: true also makes it live (and purges the caches). An idempotency key makes a retry change nothing.' })
  restoreContentVersion(
    @Arg('id', () => ID) id: string,
    @Arg('version', () => Int) version: number,
    @Arg('publish', () => Boolean, { nullable: true, description: 'Publish the restored draft at once (default false).' }) publish: boolean | null,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<Content> {
    return this.services.publishing.restore(ctx.principal, id, version, { publish, idempotencyKey });
  }

  @Mutation(() => PreviewLink, { description: 'A signed link showing a DRAFT version (default: the latest) to anyone who has it, until it expires (editor or admin of the site). 409 when the version is not a draft.' })
  createPreviewLink(
    @Arg('id', () => ID) id: string,
    @Arg('version', () => Int, { nullable: true }) version: number | null,
    @Arg('expiresInSeconds', () => Int, { nullable: true, description: `Lifetime, ${PREVIEW_TTL_BOUNDS.min} to ${PREVIEW_TTL_BOUNDS.max} seconds; default SVC_CMS_PREVIEW_TTL_SECONDS (3600).` }) expiresInSeconds: number | null,
    @Ctx() ctx: SvcContext,
  ): Promise<PreviewLink> {
    return this.services.previews.createLink(ctx.principal, id, version, expiresInSeconds);
  }

  @Mutation(() => PreviewSecretRotation, { description: 'Gives the site a new preview secret: every preview link made before stops working (editor or admin of the site).' })
  rotatePreviewSecret(@Arg('siteKey', () => String) siteKey: string, @Ctx() ctx: SvcContext): Promise<PreviewSecretRotation> {
    return this.services.previews.rotateSecret(ctx.principal, siteKey);
  }

  @Mutation(() => PurgeReport, { description: 'Purges the delivery cache, then every edge cache, for one content (editor or admin of the site).' })
  purgeCache(@Arg('siteKey', () => String) siteKey: string, @Arg('contentSlug', () => String) contentSlug: string, @Ctx() ctx: SvcContext): Promise<PurgeReport> {
    return this.services.purge.purgeCache(ctx.principal, siteKey, contentSlug);
  }
}
