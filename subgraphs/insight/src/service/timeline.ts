import { parseInput, requireRole, validationError, type TenantRequest } from '@svc/kit';
import type { EngineEvent } from '../engine/events.js';
import { EVENT_LIMITS, eventInputSchema, eventListSchema, eventWindow, type TimelineEvent } from '../domain/timeline-event.js';
import type { EventStore } from '../store/event-store.js';
import { scoped } from './jobs.js';
import type { Caller } from './sources/metric-source.js';
import type { PlatformEvents } from './sources/platform-events.js';

export interface TimelineServiceDeps {
  store: EventStore;
  platform: PlatformEvents;
  now?: () => number;
}

/** Events handed to one analysis, at most (the engine names those within a day of a change point). */
export const ENGINE_EVENTS_MAX = 10_000;

/** Events as the engine reads them (with their source, which the engine ignores). */
export type SourcedEngineEvent = EngineEvent & { source: TimelineEvent['source'] };

/**
 * A tenant's timeline: the events it posts (a price change, a campaign, a deploy) and the ones
 * the platform records without being asked (content versions published, crawl runs failed,
 * selectors healed), read from the other services with the caller's authority.
 */
export function createTimelineService(deps: TimelineServiceDeps) {
  const now = deps.now ?? Date.now;

  async function merged(caller: Caller, from: number, to: number, limit: number, kind?: string): Promise<TimelineEvent[]> {
    const [own, platform] = await Promise.all([deps.store.between(caller.tenantId, from, to, limit, kind), deps.platform.between(caller, from, to)]);
    return [...own, ...platform.filter((e) => !kind || e.kind === kind)].sort((a, b) => a.at - b.at || a.id.localeCompare(b.id)).slice(0, limit);
  }

  return {
    /** Records a tenant event. Role analyst. */
    async record(request: TenantRequest, input: unknown): Promise<TimelineEvent> {
      const { principal, tenantId } = scoped(request, 'analyst');
      const e = parseInput(eventInputSchema, input);
      return deps.store.add(tenantId, principal.subject, e);
    },

    /** The tenant's and the platform's events in a window (default the last 90 days), oldest first, at most 1000. Roles analyst, reviewer. */
    async list(caller: Caller, query: unknown): Promise<TimelineEvent[]> {
      requireRole(caller.principal, 'analyst', 'reviewer');
      const window = eventWindow(parseInput(eventListSchema, query), now());
      if ('pointer' in window) throw validationError([window]);
      return merged(caller, window.from, window.to, EVENT_LIMITS.listMax, window.kind);
    },

    /** Every event in [from, to) for the engine: stored and the platform's, oldest first; `ref` set when something can be acted on. */
    async eventsBetween(caller: Caller, from: number, to: number): Promise<EngineEvent[]> {
      requireRole(caller.principal, 'analyst', 'reviewer');
      const events = await merged(caller, from, to, ENGINE_EVENTS_MAX);
      return events.map((e): SourcedEngineEvent => ({ at: e.at, kind: e.kind, title: e.title, ...(e.ref ? { ref: e.ref } : {}), source: e.source }));
    },
  };
}

export type TimelineService = ReturnType<typeof createTimelineService>;
