/**
 * Events on the timeline (a price change, a campaign, a deploy, a content version published)
 * lined up with change points: an event within a day of a change point is named beside it.
 */
import { dayOf, daysBetween } from './days.js';

export interface EngineEvent {
  /** Epoch milliseconds or an ISO date/time. */
  at: number | string;
  kind: string;
  title: string;
  /** A reference the caller can act on (e.g. a content version's id). */
  ref?: string;
}

export interface AlignedEvent {
  event: EngineEvent;
  /** The change point's day it lines up with. */
  changePoint: string;
  /** Event day − change point day, in days (−1, 0 or 1). */
  offsetDays: number;
}

export const EVENT_TOLERANCE_DAYS = 1;

export function eventDay(e: EngineEvent): string {
  const t = typeof e.at === 'number' ? e.at : Date.parse(e.at);
  if (!Number.isFinite(t)) throw new RangeError(`event ${JSON.stringify(e.title)} has no valid time: ${JSON.stringify(e.at)}`);
  return dayOf(t);
}

/**
 * Events within a day of any of the change points, nearest first. The same event posted twice
 * (same day, kind, title and ref) is named once.
 */
export function alignEvents(events: readonly EngineEvent[], changePoints: readonly string[]): AlignedEvent[] {
  const out: AlignedEvent[] = [];
  const seen = new Set<string>();
  for (const event of events) {
    const day = eventDay(event);
    const key = JSON.stringify([day, event.kind, event.title, event.ref ?? null]);
    if (seen.has(key)) continue;
    seen.add(key);
    let best: AlignedEvent | undefined;
    for (const cp of changePoints) {
      const offsetDays = daysBetween(cp, day);
      if (Math.abs(offsetDays) <= EVENT_TOLERANCE_DAYS && (!best || Math.abs(offsetDays) < Math.abs(best.offsetDays))) best = { event, changePoint: cp, offsetDays };
    }
    if (best) out.push(best);
  }
  return out.sort((a, b) => Math.abs(a.offsetDays) - Math.abs(b.offsetDays) || eventDay(a.event).localeCompare(eventDay(b.event)));
}
