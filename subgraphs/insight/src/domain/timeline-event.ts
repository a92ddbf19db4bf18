import { z } from 'zod';
import { METRIC_LIMITS } from './metric.js';
import { timestampSchema } from './timestamp.js';

/**
 * Events on a tenant's timeline: what happened at a moment (a price change, a campaign, a deploy,
 * a content version published), so an analysis can name what else happened when a metric
 * changed. Tenants post theirs (`source: tenant`); the platform's own are read from the other
 * services when asked (`source: platform`).
 */

export const EVENT_SOURCES = ['tenant', 'platform'] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

export interface TimelineEvent {
  id: string;
  /** Epoch milliseconds, UTC. */
  at: number;
  kind: string;
  title: string;
  ref: string | null;
  source: EventSource;
}

export const EVENT_LIMITS = { titleLength: 300, refLength: 300, kindLength: 40, listDefaultDays: 90, listMaxDays: 1100, listMax: 1000 } as const;

const DAY = 86_400_000;

const timestamp = timestampSchema.refine((t) => t >= METRIC_LIMITS.minTime && t < METRIC_LIMITS.maxTime, { message: 'must be between 1970 and 2200' });

/** A short lower-case word or two joined by `_`: `price_change`, `campaign`, `deploy`. */
const kind = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'kind must be a short word of a-z, 0-9 and "_", starting with a letter (e.g. price_change)')
  .max(EVENT_LIMITS.kindLength);

/** POST /api/v1/insight/events and GraphQL `recordEvent`. */
export const eventInputSchema = z
  .object({
    at: timestamp,
    kind: kind.describe('A short word: price_change, campaign, deploy, content_published, …'),
    title: z.string().trim().min(1, 'title is required').max(EVENT_LIMITS.titleLength),
    ref: z.string().trim().min(1).max(EVENT_LIMITS.refLength).optional().describe('Something to act on or look up, e.g. a campaign id or a URL.'),
  })
  .strict()
  .meta({ example: { at: '2026-11-14T09:00:00Z', kind: 'price_change', title: 'Pricing page: plans 10 % dearer', ref: 'pricing-2026-11' } });

export type EventInput = z.output<typeof eventInputSchema>;

/** GET /api/v1/insight/events and GraphQL `events`: a window [from, to) and optionally one kind. */
export const eventListSchema = z
  .object({
    from: timestamp.optional().describe('Start (inclusive); default 90 days before to.'),
    to: timestamp.optional().describe('End (exclusive); default now.'),
    kind: kind.optional().describe('Only events of this kind.'),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined) {
      if (q.from >= q.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must be before to' });
      else if (q.to - q.from > EVENT_LIMITS.listMaxDays * DAY) ctx.addIssue({ code: 'custom', path: ['to'], message: `the window may be at most ${EVENT_LIMITS.listMaxDays} days` });
    }
  });

/** A validated list query with its defaults filled in; a problem (naming `from`) when the defaulted window is too long. */
export function eventWindow(q: z.output<typeof eventListSchema>, now: number): { from: number; to: number; kind?: string | undefined } | { pointer: string; detail: string } {
  const to = q.to ?? Math.max(now, (q.from ?? 0) + DAY);
  const from = q.from ?? to - EVENT_LIMITS.listDefaultDays * DAY;
  if (from >= to) return { pointer: '/from', detail: 'from must be before to' };
  if (to - from > EVENT_LIMITS.listMaxDays * DAY) return { pointer: '/from', detail: `the window from ${new Date(from).toISOString()} to ${new Date(to).toISOString()} is longer than ${EVENT_LIMITS.listMaxDays} days` };
  return { from, to, kind: q.kind };
}
