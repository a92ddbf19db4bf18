import { requireRole, type IdempotentCall, type Principal } from '@svc/kit';
import type { Content } from '../domain/content.js';
import type { ContentStore, KeyedLock } from '../store/content-store.js';
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

/** An idempotency key for an authoring change, and what a repeated call answers (changing nothing). */
export interface KeyedAuthoring<T> {
  call: IdempotentCall;
  replay: (locked: LockedContent, editor: Principal) => Promise<T>;
}

/** The keyed form of a change to content `id` when the request has an idempotency key. */
export function keyedAuthoring<T>(key: string | undefined, operation: string, id: string, replay: KeyedAuthoring<T>['replay']): KeyedAuthoring<T> | undefined {
  return key === undefined ? undefined : { call: { key, operation, target: id }, replay };
}

/**
 * As {@link authoredContent}, running `fn` with the content's row locked; `fn` gets the editor
 * too. With `keyed`, once per idempotency key; a repeated call is checked like the first.
 */
export async function withAuthoredContent<T>(
  contents: ContentStore,
  principal: Principal | undefined,
  id: string,
  fn: (locked: LockedContent, editor: Principal) => Promise<T>,
  keyed?: KeyedAuthoring<T>,
): Promise<T> {
  const editor = requireRole(principal, 'editor');
  const authored = (run: (locked: LockedContent, editor: Principal) => Promise<T>) => async (locked: LockedContent | undefined) => {
    if (!locked || !mayAuthor(principal, locked.state.siteKey)) throw contentNotFound(id);
    return run(locked, editor);
  };
  const lock: KeyedLock<T> | undefined = keyed && { call: keyed.call, replay: authored(keyed.replay) };
  return contents.withLockedContent(id, authored(fn), lock);
}
