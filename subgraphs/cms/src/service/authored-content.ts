import { requireRole, type Principal } from '@svc/kit';
import type { Content } from '../domain/content.js';
import type { ContentStore } from '../store/content-store.js';
import type { LockedContent } from '../store/locked-content.js';
import { mayAuthor } from './access.js';
import { contentNotFound } from './not-found.js';

/** A content for authoring: 401/403 without an editor token, 404 for ids of sites the token lacks. */
export async function authoredContent(contents: ContentStore, principal: Principal | undefined, id: string): Promise<Content> {
  requireRole(principal, 'editor');
  const content = await contents.content(id);
  if (!content || !mayAuthor(principal, content.siteKey)) throw contentNotFound(id);
  return content;
}

/** As {@link authoredContent}, running `fn` with the content's row locked; `fn` gets the editor too. */
export async function withAuthoredContent<T>(contents: ContentStore, principal: Principal | undefined, id: string, fn: (locked: LockedContent, editor: Principal) => Promise<T>): Promise<T> {
  const editor = requireRole(principal, 'editor');
  return contents.withLockedContent(id, async (locked) => {
    if (!locked || !mayAuthor(principal, locked.state.siteKey)) throw contentNotFound(id);
    return fn(locked, editor);
  });
}
