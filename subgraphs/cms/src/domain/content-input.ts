import { validationError, type FieldProblem } from '@svc/kit';
import type { ContentFields, Seo } from './seo.js';

/** A new content: its site, its slug (fixed for good) and the text of version 1. */
export interface NewContent {
  siteKey: string;
  slug: string;
  title: string;
  fields?: ContentFields | null;
  seo?: Seo | null;
  /** One of the site's locales; default the site's default locale. */
  locale?: string | null;
  /** Another locale of this content (its id): the new row is a translation of it. */
  translationOf?: string | null;
}

/** A draft edit: members left out keep their current value; null clears a field. */
export interface DraftEdit {
  title?: string | null;
  fields?: ContentFields | null;
  seo?: Seo | null;
}

const URL_FIELDS = new Set(['bannerUrl', 'ctaLink', 'ogImage']);
const MAX_TEXT = 5000;
const MAX_TITLE = 300;

/** Validates editorial input; text is stored as given (delivery is JSON, never HTML). */
export function checkContentInput(input: DraftEdit, creating: boolean): void {
  const problems: FieldProblem[] = [];
  if (creating || input.title !== undefined) {
    const title = input.title?.trim() ?? '';
    if (!title) problems.push({ pointer: '/title', detail: 'title is required' });
    else if (title.includes('\u0000')) problems.push({ pointer: '/title', detail: 'title must not contain NUL characters' });
    else if (title.length > MAX_TITLE) problems.push({ pointer: '/title', detail: `title must be at most ${MAX_TITLE} characters; got ${title.length}` });
  }
  for (const [group, values] of [['fields', input.fields], ['seo', input.seo]] as const) {
    for (const [name, value] of Object.entries(values ?? {})) {
      if (value === null || value === undefined) continue;
      if (value.includes('\u0000')) problems.push({ pointer: `/${group}/${name}`, detail: `${name} must not contain NUL characters` });
      if (value.length > MAX_TEXT) problems.push({ pointer: `/${group}/${name}`, detail: `${name} must be at most ${MAX_TEXT} characters; got ${value.length}` });
      if (URL_FIELDS.has(name) && value && !/^(https?:\/\/\S+|\/\S*)$/.test(value)) {
        problems.push({ pointer: `/${group}/${name}`, detail: `${name} must be an http(s) URL or a path starting with /; got ${JSON.stringify(value.slice(0, 80))}` });
      }
    }
  }
  if (problems.length) throw validationError(problems);
}

/** Members present in `patch` replace those of `base`; undefined members keep the base value. */
export function mergeDefined<T extends object>(base: T, patch: Partial<T> | null | undefined): T {
  const merged = { ...base };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}
