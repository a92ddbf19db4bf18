import { contentPage, type ContentTarget, type ContentVersionState } from '../domain/event-target.js';
import type { ProposedAction } from '../domain/report.js';
import { recoveryImpact, type LeverContext } from './lever-context.js';

/**
 * A content version suspected of a move: published on the day the move started, or the version
 * that went live on the page a cause of the move names. What to propose depends on the content
 * as it is now:
 * - its live version is still the suspect → restore the version live before it (CONTENT_RESTORE);
 * - a newer draft waits → update that draft, putting back what the suspect changed and keeping
 *   the rest of the draft (CONTENT_DRAFT_UPDATE), since a restore would overwrite the draft;
 * - a later version is live and still carries the suspect's change (a typo fix on top of it) →
 *   restore the version live before the suspect (CONTENT_RESTORE), naming what it also drops;
 * - the suspect's change is no longer live, or the draft already undoes it → nothing, and why.
 * Without the content's state (not readable), the version before the suspect is restored.
 */
export interface SuspectVersion {
  siteKey: string;
  contentId: string;
  version: number;
  /** How it was found, in words: "published on the day the move started", "the page region=... names". */
  how: string;
}

export interface ContentLever {
  action?: ProposedAction;
  /** Why nothing was proposed for it. */
  reason?: string;
}

const DAY = 86_400_000;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The version that was live just before `version` went live. */
export function previousLive(target: ContentTarget, version: number): ContentVersionState | undefined {
  const suspect = target.versions.find((v) => v.version === version);
  const at = suspect?.publishedAt ? Date.parse(suspect.publishedAt) : Number.POSITIVE_INFINITY;
  return target.versions
    .filter((v) => v.version !== version && v.publishedAt !== null && Date.parse(v.publishedAt) < at)
    .sort((a, b) => Date.parse(b.publishedAt!) - Date.parse(a.publishedAt!))[0];
}

/** The version of `target` that went live last within [from, to] (days), if any. */
export function publishedWithin(target: ContentTarget, from: string, to: string): ContentVersionState | undefined {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`) + DAY;
  return target.versions
    .filter((v) => v.publishedAt !== null && Date.parse(v.publishedAt) >= start && Date.parse(v.publishedAt) < end)
    .sort((a, b) => Date.parse(b.publishedAt!) - Date.parse(a.publishedAt!))[0];
}

type Text = Pick<ContentVersionState, 'title' | 'fields' | 'seo'>;
interface Revert { input: { title?: string; fields?: Record<string, unknown>; seo?: Record<string, unknown> }; previous: { title?: string; fields?: Record<string, unknown>; seo?: Record<string, unknown> }; changed: string[] }

/** What `suspect` changed from `before` and `draft` still carries: `before`'s values for it, and the draft's. */
export function revertInDraft(before: Text, suspect: Text, draft: Text): Revert {
  const out: Revert = { input: {}, previous: {}, changed: [] };
  if (!same(before.title, suspect.title) && same(draft.title, suspect.title)) {
    out.input.title = before.title;
    out.previous.title = draft.title;
    out.changed.push('title');
  }
  for (const group of ['fields', 'seo'] as const) {
    const keys = new Set([...Object.keys(before[group] ?? {}), ...Object.keys(suspect[group] ?? {})]);
    for (const key of keys) {
      const was = before[group]?.[key];
      if (same(was, suspect[group]?.[key]) || !same(draft[group]?.[key], suspect[group]?.[key])) continue;
      (out.input[group] ??= {})[key] = was ?? null;
      (out.previous[group] ??= {})[key] = draft[group]?.[key] ?? null;
      out.changed.push(`${group}.${key}`);
    }
  }
  return out;
}

export function contentLever(s: SuspectVersion, target: ContentTarget | undefined, ctx: LeverContext): ContentLever {
  const what = `version ${s.version} of content ${s.contentId}`;
  const base = { targetType: 'Content' as const, targetId: s.contentId, ...(ctx.finding ? { finding: ctx.finding } : {}) };
  if (!target) {
    if (s.version < 2) return { reason: `${what} is its first version; there is none before it to restore.` };
    return {
      action: {
        kind: 'CONTENT_RESTORE', ...base,
        title: `Restore version ${s.version - 1} of content ${s.contentId} (site ${s.siteKey})`,
        rationale: `Version ${s.version} was ${s.how} (${ctx.changeDay}); restoring the version before it undoes the change, if the change was the cause.`,
        params: { siteKey: s.siteKey, version: s.version - 1 },
        expectedImpact: recoveryImpact(ctx, what, 'restoring the version before it'),
      },
    };
  }
  const page = contentPage(target);
  const before = previousLive(target, s.version);
  const suspect = target.versions.find((v) => v.version === s.version);
  if (!before || !suspect) return { reason: `Version ${s.version} of ${page} was the first version live; there is none before it to restore.` };
  const latest = target.versions.find((v) => v.version === target.latestVersion);
  if (latest && latest.status === 'DRAFT' && latest.version > s.version) {
    const revert = revertInDraft(before, suspect, latest);
    if (revert.changed.length === 0) return { reason: `The draft version ${latest.version} of ${page} already undoes what version ${s.version} changed; publishing it is the lever.` };
    const impact = recoveryImpact(ctx, `version ${s.version}`, 'publishing the updated draft');
    return {
      action: {
        kind: 'CONTENT_DRAFT_UPDATE', ...base,
        title: `Put back in draft version ${latest.version} of ${page} what version ${s.version} changed (${revert.changed.join(', ')})`,
        rationale: `Version ${s.version} of ${page} was ${s.how} (${ctx.changeDay}), and draft version ${latest.version} still carries its change; restoring version ${before.version} would overwrite the draft, so the draft takes version ${before.version}'s ${revert.changed.join(', ')} and keeps the rest. Publish it after review.`,
        params: { siteKey: target.siteKey, input: revert.input, baseVersion: latest.version, reverts: s.version, from: before.version, previous: revert.previous },
        expectedImpact: { ...impact, method: `${impact.method}; nothing changes until the draft is published` },
        undoable: true,
        undo: `Nothing goes live until the draft is published; to undo, update draft version ${latest.version} again with the values in params.previous.`,
      },
    };
  }
  if (target.publishedVersion !== s.version) {
    // A later version live now (a typo fix published the same day, say) may still carry the
    // suspect's change: then the version before the suspect is still the one to go back to.
    const live = target.versions.find((v) => v.version === target.publishedVersion);
    const carried = live && live.version > s.version ? revertInDraft(before, suspect, live).changed : [];
    if (!live || carried.length === 0) {
      return { reason: `Version ${s.version} of ${page} is no longer live (${target.publishedVersion === null ? 'nothing is' : `version ${target.publishedVersion} is`}${live && live.version > s.version ? `, and it no longer carries what version ${s.version} changed` : ''}), so restoring the version before it is not proposed.` };
    }
    return {
      action: {
        kind: 'CONTENT_RESTORE', ...base,
        title: `Restore version ${before.version} of ${page}`,
        rationale: `Version ${s.version} of ${page} was ${s.how} (${ctx.changeDay}), and version ${live.version}, live now, still carries its change (${carried.join(', ')}); restoring version ${before.version}, live before version ${s.version}, undoes the change, if the change was the cause, and with it what ${live.version > s.version + 1 ? `versions ${s.version + 1}–${live.version}` : `version ${live.version}`} changed besides.`,
        params: { siteKey: target.siteKey, version: before.version },
        expectedImpact: recoveryImpact(ctx, `version ${s.version}`, 'restoring the version before it'),
      },
    };
  }
  return {
    action: {
      kind: 'CONTENT_RESTORE', ...base,
      title: `Restore version ${before.version} of ${page}`,
      rationale: `Version ${s.version} of ${page} was ${s.how} (${ctx.changeDay}); restoring version ${before.version}, live before it, undoes the change, if the change was the cause.`,
      params: { siteKey: target.siteKey, version: before.version },
      expectedImpact: recoveryImpact(ctx, `version ${s.version}`, 'restoring the version before it'),
    },
  };
}
