import { SvcError, validationError, type Principal } from '@svc/kit';
import { VersionStatus } from '../domain/content.js';
import { localizedDelivery, type Delivery } from '../domain/delivery.js';
import { readPreviewToken, signPreviewToken } from '../domain/preview-token.js';
import type { ContentStore } from '../store/content-store.js';
import type { SiteStore } from '../store/site-store.js';
import { requireAuthor } from './access.js';
import { authoredContent } from './authored-content.js';
import { contentNotFound, versionNotFound } from './not-found.js';

export interface PreviewDeps {
  sites: SiteStore;
  contents: ContentStore;
  /** Lifetime of a link when the author names none, seconds. */
  defaultTtlSeconds: number;
}

/** Shortest and longest lifetime an author may ask for: a minute to a week. */
export const PREVIEW_TTL_BOUNDS = { min: 60, max: 7 * 86_400 } as const;

/** A link to one draft version, for people without an account. */
export interface PreviewLink {
  token: string;
  contentId: string;
  siteKey: string;
  slug: string;
  version: number;
  expiresAt: Date;
  /** Path of the delivery API that shows the draft (`?preview=<token>`). */
  path: string;
}

const refused = (slug: string, message: string) => new SvcError('UNAUTHENTICATED', message, { slug, title: 'Preview Link Refused' });

/** Preview links: made by an author of the site, read by anyone holding one until it expires or the site's secret is rotated. */
export function createPreviews(deps: PreviewDeps) {
  const { sites, contents } = deps;
  return {
    async createLink(principal: Principal | undefined, id: string, version: number | null, expiresInSeconds: number | null, now = new Date()): Promise<PreviewLink> {
      const ttl = expiresInSeconds ?? deps.defaultTtlSeconds;
      if (!Number.isInteger(ttl) || ttl < PREVIEW_TTL_BOUNDS.min || ttl > PREVIEW_TTL_BOUNDS.max) {
        throw validationError([{ pointer: '/expiresInSeconds', detail: `must be a whole number of seconds from ${PREVIEW_TTL_BOUNDS.min} to ${PREVIEW_TTL_BOUNDS.max}; got ${ttl}` }]);
      }
      const content = await authoredContent(contents, principal, id);
      const wanted = version ?? content.latestVersion;
      const shown = content.versions.find((v) => v.version === wanted);
      if (!shown) throw versionNotFound(id, wanted);
      if (shown.status !== VersionStatus.DRAFT) {
        throw new SvcError('CONFLICT', `Version ${wanted} of ${JSON.stringify(content.slug)} is ${shown.status}, not a draft: a preview shows a draft before it goes live`, { slug: 'version-not-draft' });
      }
      const site = await sites.withPreviewSecret({ siteKey: content.siteKey });
      if (!site) throw contentNotFound(id);
      const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + ttl * 1000);
      const token = signPreviewToken({ siteId: site.site.id, contentId: content.id, version: wanted, expiresAt }, site.secret);
      return { token, contentId: content.id, siteKey: content.siteKey, slug: content.slug, version: wanted, expiresAt, path: `/api/v1/contents/${content.slug}?preview=${token}` };
    },

    /** Revokes every preview link of the site (editor or admin of the site). */
    async rotateSecret(principal: Principal | undefined, siteKey: string): Promise<{ siteKey: string; rotatedAt: Date }> {
      requireAuthor(principal, siteKey);
      const rotatedAt = await sites.rotatePreviewSecret(siteKey);
      if (!rotatedAt) throw new SvcError('NOT_FOUND', `No site with key ${JSON.stringify(siteKey)}`, { slug: 'site-not-found', title: 'Site Not Found' });
      return { siteKey, rotatedAt };
    },

    /**
     * The draft a token shows, rendered as delivery renders a live version. 401 for a token that
     * is malformed, forged, signed with a rotated secret or expired; 403 when it is for another
     * content than `slug` (or another site than the one named); 404 when its content or version
     * is gone; 409 when the version was published since.
     */
    async preview(slug: string, token: string, siteKey: string | undefined, now = new Date()): Promise<Delivery> {
      const read = readPreviewToken(token);
      if (!read) throw refused('preview-token-invalid', 'The preview token is not valid');
      const signer = await sites.withPreviewSecret({ siteId: read.claims.siteId });
      if (!signer || !read.verify(signer.secret)) throw refused('preview-token-invalid', 'The preview token is not valid (forged, altered, or revoked by a new preview secret)');
      if (read.claims.expiresAt.getTime() <= now.getTime()) throw refused('preview-token-expired', `The preview link expired at ${read.claims.expiresAt.toISOString()}; ask an author for a new one`);
      const content = await contents.content(read.claims.contentId);
      if (!content) throw new SvcError('NOT_FOUND', 'The content of this preview link no longer exists', { slug: 'preview-content-gone' });
      const { site } = signer;
      if (content.slug !== slug || (siteKey !== undefined && siteKey !== site.siteKey)) {
        throw new SvcError('FORBIDDEN', `This preview link is for another content than ${JSON.stringify(slug)}`, { slug: 'preview-scope' });
      }
      const version = content.versions.find((v) => v.version === read.claims.version);
      if (!version) throw new SvcError('NOT_FOUND', `Version ${read.claims.version} of ${JSON.stringify(slug)} no longer exists`, { slug: 'preview-version-gone' });
      if (version.status !== VersionStatus.DRAFT) {
        const since = version.status === VersionStatus.PUBLISHED ? 'was published since and is live: GET it without the preview parameter' : `was published since and is now ${version.status}`;
        throw new SvcError('CONFLICT', `Version ${version.version} of ${JSON.stringify(slug)} ${since}`, { slug: 'preview-version-published', details: { version: version.version, versionStatus: version.status } });
      }
      // Rendered as delivery renders its locale: the draft first, then the live versions of its fallback locales.
      const draft = { contentId: content.id, groupId: content.groupId, locale: content.locale, slug: content.slug, publishedAt: null, version };
      return localizedDelivery(site, content.slug, content.locale, await contents.publishedLocalesOf(content.groupId), 0, { draft, expiresAt: read.claims.expiresAt })!;
    },
  };
}

export type Previews = ReturnType<typeof createPreviews>;
