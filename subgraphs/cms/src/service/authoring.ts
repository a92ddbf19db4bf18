import { checkIdempotencyKey, SvcError, validationError, type Principal } from '@svc/kit';
import { VersionStatus, type Content, type ContentVersion, type VersionText } from '../domain/content.js';
import { checkContentInput, mergeDefined, type DraftEdit, type NewContent } from '../domain/content-input.js';
import { checkTag } from '../domain/locale.js';
import { checkSiteKey, checkSlug } from '../domain/slug.js';
import type { ContentStore } from '../store/content-store.js';
import type { LockedContent } from '../store/locked-content.js';
import type { SiteStore } from '../store/site-store.js';
import { mayAuthor, requireAuthor } from './access.js';
import { authoredContent, keyedAuthoring, withAuthoredContent } from './authored-content.js';
import { siteOrFail } from './site-key.js';

export interface AuthoringDeps {
  sites: SiteStore;
  contents: ContentStore;
}

/**
 * Edits go to the draft: the latest version when it is a DRAFT, otherwise a new DRAFT
 * copied from the latest, so published and superseded versions never change.
 */
export async function editDraft(locked: LockedContent, actor: string, edit: (current: ContentVersion) => VersionText): Promise<void> {
  const latest = await locked.latestVersion();
  const text = edit(latest);
  if (latest.status === VersionStatus.DRAFT) await locked.rewriteVersion(latest.version, text);
  else locked.addDraft(text, actor);
}

/** Reading, creating and editing contents (editors and admins of the content's site). */
export function createAuthoring(deps: AuthoringDeps) {
  const { sites, contents } = deps;
  return {
    async get(principal: Principal | undefined, id: string): Promise<Content> {
      return authoredContent(contents, principal, id);
    },

    /** The site's contents by slug; with `locale`, those of that locale only (422 when it is no language tag). */
    async list(principal: Principal | undefined, siteKey: string, locale?: string | null): Promise<Content[]> {
      requireAuthor(principal, siteKey);
      const tag = locale != null ? checkTag(locale, '/locale') : undefined;
      return contents.ofSite(await siteOrFail(sites, siteKey), tag);
    },

    /**
     * Batch load for federation references: each id's content, or FORBIDDEN when it exists but the
     * caller may not author it (an id not returned does not exist: the loader's ENTITY_NOT_FOUND).
     */
    async byIds(principal: Principal | undefined, ids: readonly string[]): Promise<Map<string, Content | SvcError>> {
      const found = await contents.byIds(ids);
      return new Map(found.map((content) => [content.id, mayAuthor(principal, content.siteKey) ? content : new SvcError('FORBIDDEN', `Your token may not read content ${JSON.stringify(content.id)} (role editor or admin of its site)`)] as const));
    },

    async create(principal: Principal | undefined, input: NewContent): Promise<Content> {
      checkSiteKey(input.siteKey);
      const author = requireAuthor(principal, input.siteKey);
      checkSlug(input.slug);
      checkContentInput(input, true);
      const site = await siteOrFail(sites, input.siteKey);
      const locale = input.locale != null ? checkTag(input.locale, '/locale') : site.defaultLocale;
      if (!site.locales.some((l) => l.tag === locale)) {
        throw validationError([{ pointer: '/locale', detail: `${locale} is not one of site ${input.siteKey}'s locales (${site.locales.map((l) => l.tag).join(', ')})` }]);
      }
      let groupId: string | undefined;
      if (input.translationOf != null) {
        const original = await authoredContent(contents, principal, input.translationOf);
        if (original.siteKey !== site.siteKey) throw validationError([{ pointer: '/translationOf', detail: `content ${input.translationOf} is of site ${original.siteKey}, not ${site.siteKey}` }]);
        groupId = original.groupId;
      }
      const text = { title: input.title.trim(), fields: { ...(input.fields ?? {}) }, seo: { ...(input.seo ?? {}) } };
      const content = await contents.insert(site, input.slug, text, author.subject, { locale, ...(groupId ? { groupId } : {}) });
      if (content === 'slug-taken') throw new SvcError('CONFLICT', `Site ${JSON.stringify(input.siteKey)} already has a content with slug ${JSON.stringify(input.slug)} in ${locale}`, { slug: 'slug-taken' });
      if (content === 'locale-taken') throw new SvcError('CONFLICT', `Content ${input.translationOf} has a ${locale} version already: edit that one`, { slug: 'locale-taken' });
      return content;
    },

    /** The other locales of a content (its translations), each with its id and slug. */
    async translations(content: Content): Promise<{ id: string; locale: string; slug: string; publishedVersion: number | null; latestVersion: number }[]> {
      return contents.translations(content.groupId);
    },

    /** With an idempotency key, a repeated call answers the content as it is now and changes nothing. */
    async updateDraft(principal: Principal | undefined, id: string, input: DraftEdit, baseVersion?: number | null, idempotencyKey?: string | null): Promise<Content> {
      checkContentInput(input, false);
      const key = checkIdempotencyKey(idempotencyKey);
      const keyed = keyedAuthoring(key, 'updateContentDraft', id, (locked) => locked.view());
      return withAuthoredContent(contents, principal, id, async (locked, editor) => {
        const { latestVersion } = locked.state;
        if (baseVersion != null && baseVersion !== latestVersion) {
          throw new SvcError('CONFLICT', `Content ${id} is at version ${latestVersion}, not ${baseVersion}: reload and apply your change again`, { slug: 'version-conflict' });
        }
        await editDraft(locked, editor.subject, (draft) => ({
          title: input.title != null ? input.title.trim() : draft.title,
          fields: mergeDefined(draft.fields, input.fields),
          seo: mergeDefined(draft.seo, input.seo),
        }));
        return locked.view();
      }, keyed);
    },

  };
}

export type Authoring = ReturnType<typeof createAuthoring>;
