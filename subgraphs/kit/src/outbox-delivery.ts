import type { Agenda } from './jobs.js';
import type { Logger } from './logger.js';

export interface OutboxDeliveryOptions {
  agenda: Agenda;
  /** The agenda job's name (queued jobs are stored with it: never rename it). */
  job: string;
  /** The member of the job's data that holds the outbox row's id (stored too: never rename it). */
  key: string;
  /** One attempt at row `id`, which claims it first; when to try again, or undefined when done (or not due, or taken). */
  attempt(id: string): Promise<Date | undefined>;
  /** Ids of rows due and not claimed, at most `limit`, oldest first. */
  due(limit: number): Promise<string[]>;
  /** Names the outbox in the sweep's log line ("<name> outbox swept"). */
  name: string;
  log: Logger;
}

/**
 * Delivery from an outbox table: the row is the durable record, an agenda job per row only a
 * prompt nudge. `enqueue` queues the nudge (a caller that cannot queue leaves the row to the
 * sweep); each attempt reschedules the job when it asks for a retry; `sweep` delivers every due
 * row whose job was never queued (the process died between the commit and the nudge) or was
 * lost, and is run at start and then periodically. Used by the cms form webhooks and the crawl
 * execution webhooks.
 */
export function createOutboxDelivery(options: OutboxDeliveryOptions) {
  const { agenda, job, key, log } = options;
  async function deliver(id: string): Promise<void> {
    const retryAt = await options.attempt(id);
    if (retryAt) await agenda.schedule(retryAt, job, { [key]: id });
  }
  return {
    /** Registers the handler; call before agenda.start(). */
    define(): void {
      agenda.define(job, (queued: { attrs: { data: Record<string, string> } }) => deliver(queued.attrs.data[key]!));
    },
    /** Queues a prompt attempt at row `id`; rejects when the job cannot be queued. */
    async enqueue(id: string): Promise<void> {
      await agenda.now(job, { [key]: id });
    },
    /** Delivers the due rows (at most `batch`); answers how many were due. */
    async sweep(batch = 100): Promise<number> {
      const due = await options.due(batch);
      for (const id of due) await deliver(id);
      if (due.length) log.info({ due: due.length }, `${options.name} outbox swept`);
      return due.length;
    },
  };
}

export type OutboxDelivery = ReturnType<typeof createOutboxDelivery>;
