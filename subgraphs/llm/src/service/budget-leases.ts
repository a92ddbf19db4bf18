import { randomUUID } from 'node:crypto';
import type { Logger } from '@svc/kit';
import type { Reservation } from '../domain/budget.js';
import type { UsageEntry } from '../domain/usage.js';
import type { LeaseKey, LeaseSettlement, LeaseStore } from '../store/lease-store.js';

/** How long a lease lives without its instance touching it, by default; then the sweep charges it in full. */
export const LEASE_TTL_MS = 60_000;

export interface LeaseBookOptions {
  store: LeaseStore;
  /** This process, as recorded on its leases. */
  instance: string;
  log: Logger;
  /** A lease is grown by this many times the request's worst case at least (then single requests near the limit). Default 32. */
  sliceFactor?: number;
  /** ...or by what the agent spent on it in this long at its recent rate, when that is more, ms. Default 1000. */
  sliceMs?: number;
  /** Answered requests are settled in batches at most this long after the answer, ms. Default 20. */
  flushMs?: number;
  /** A lease nothing uses for this long is given back, ms. Default 2000. */
  idleMs?: number;
  /** A lease its instance stops renewing (a crash) expires after this long, ms; the sweep then charges it in full. Default 60000. */
  ttlMs?: number;
  /** Told each agent's spending after a flush (for threshold alerts). */
  onSettled?: (spent: { agentCode: string; period: string; allocatedUsd: number; spentUsd: number; alertThresholdPercent: number }) => void;
}

interface Lease {
  key: LeaseKey;
  /** What PostgreSQL holds for this lease (in `reserved_usd`). */
  grantedUsd: number;
  /** Worst cases of requests in flight. */
  heldUsd: number;
  /** Cost of answered requests not written yet. */
  pendingUsd: number;
  entries: UsageEntry[];
  lastUsed: number;
  /** Its row exists (a first grow succeeded). */
  persisted: boolean;
  /**
   * Until when (performance.now) requests may be admitted against it without asking the
   * database: a margin before the expiry its last successful write or renewal set.
   */
  deadline: number;
  /** The sweep charged it (this instance stalled past its TTL): nothing more is admitted or charged under it. */
  dead: boolean;
  /** A grow is on its way for a request about to be held on it: the tidier must not give it back meanwhile. */
  growing: boolean;
  /** When it last grew (performance.now), and the cost settled on it since: its spending rate. */
  grownAt: number;
  settledSinceGrowUsd: number;
}

/**
 * Hard budgets without a database round trip per request. An instance grows a lease on an
 * agent's period budget in one transaction (as far as the hard limit admits, domain/budget.ts,
 * on the locked period row, so several instances sharing one database never overspend) and admits requests against it in memory; near the limit a lease
 * grows by single requests only, so one instance admits exactly as many requests as fit.
 * Answers are settled in batches after they have gone (one transaction: spending, lease, ledger).
 * Leases unused for `idleMs`, and all of them on a graceful stop, are given back. A process that
 * dies leaves its leases to expire; the sweep then charges each in full: a crash can over-charge
 * an agent by at most its leases (visible as `unsettled` ledger lines), never under-charge it.
 *
 * Stalls (a GC pause, a frozen VM, SIGSTOP) are fenced: a lease's id is its fencing token, and a
 * swept lease is gone for good. An instance admits against a lease only until 3/4 of the TTL
 * after the write or renewal that set its expiry was sent; past that it asks the database first,
 * and a lease found gone is dead: new requests go to a new lease grown under the hard limit, and
 * the dead one's requests settle at no cost (the sweep's charge covered them: everything admitted
 * against it fits in what it held). So a stalled instance never double-charges or overshoots.
 * Renewals run on their own timer and the store's own connection.
 */
export function createLeaseBook(options: LeaseBookOptions) {
  const { store, log } = options;
  const sliceFactor = options.sliceFactor ?? 32;
  const sliceMs = options.sliceMs ?? 1000;
  const flushMs = options.flushMs ?? 20;
  const idleMs = options.idleMs ?? 2000;
  const ttlMs = options.ttlMs ?? LEASE_TTL_MS;
  /** The lease each agent's new requests are admitted against, by `agent|period`. */
  const leases = new Map<string, Lease>();
  /** Every lease this instance holds, current or retired (a changed budget retires them), by id. */
  const byId = new Map<string, Lease>();
  const growing = new Map<string, Promise<unknown>>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  // Sums of many small floats drift by ~1e-17; money is counted in micro-dollars, so a nano-dollar is equality.
  const fits = (lease: Lease, amountUsd: number) => lease.grantedUsd - lease.heldUsd - lease.pendingUsd + 1e-9 >= amountUsd;
  const free = (lease: Lease) => Math.max(0, lease.grantedUsd - lease.heldUsd - lease.pendingUsd);

  /** Admission may rely on a lease until this long after the write or renewal that set its expiry was sent. */
  const validFor = ttlMs * 0.75;
  const newLease = (agentCode: string, period: string): Lease => {
    const lease: Lease = { key: { id: randomUUID(), agentCode, period, instance: options.instance }, grantedUsd: 0, heldUsd: 0, pendingUsd: 0, entries: [], lastUsed: Date.now(), persisted: false, deadline: 0, dead: false, growing: false, grownAt: 0, settledSinceGrowUsd: 0 };
    leases.set(`${agentCode}|${period}`, lease);
    byId.set(lease.key.id, lease);
    return lease;
  };

  /** The sweep charged this lease: new requests go to a fresh one; its requests still in flight settle at no cost. */
  function kill(lease: Lease): void {
    if (lease.dead) return;
    lease.dead = true;
    const name = `${lease.key.agentCode}|${lease.key.period}`;
    if (leases.get(name) === lease) leases.delete(name);
    log.warn({ lease: lease.key.id, agentCode: lease.key.agentCode }, 'budget lease expired and was charged in full by the sweep (this instance stalled past its TTL); acquiring a new one');
  }

  /** Asks the database whether a lease past its local deadline is still there, on the renewal path; kills it otherwise. */
  async function revalidate(lease: Lease): Promise<void> {
    const sent = performance.now();
    if ((await store.renew([lease.key.id])).has(lease.key.id)) lease.deadline = sent + validFor;
    else kill(lease);
  }

  /**
   * What the lease's agent spends in `sliceMs` at the rate settled on it since it last grew (0 for
   * a new lease). A busy agent's lease grows by that much, so it grows about once per `sliceMs`
   * instead of once per `sliceFactor` requests' worst case: at thousands of requests a second
   * that was dozens of grow transactions a second on the agent's period row.
   */
  function recentSpendUsd(lease: Lease): number {
    if (!lease.grownAt) return 0;
    const seconds = Math.max(0.05, (performance.now() - lease.grownAt) / 1000);
    return (lease.settledSinceGrowUsd / seconds) * (sliceMs / 1000);
  }

  /**
   * Grows (or opens) the agent's lease so `amountUsd` fits and returns it; undefined when the hard
   * limit refuses even one request. Every lease it works on is marked `growing` until it returns,
   * so the tidier cannot give back (and drop) the lease the caller is about to hold a request on.
   */
  async function grow(agentCode: string, period: string, amountUsd: number, openPeriod: () => Promise<void>): Promise<Lease | undefined> {
    const name = `${agentCode}|${period}`;
    const marked: Lease[] = [];
    const mark = (lease: Lease): Lease => {
      lease.growing = true;
      marked.push(lease);
      return lease;
    };
    let lease = mark(leases.get(name) ?? newLease(agentCode, period));
    try {
      const needed = Math.max(0, amountUsd - free(lease));
      for (const want of [Math.max(needed, amountUsd * sliceFactor, recentSpendUsd(lease)), needed]) {
        for (let attempt = 0; attempt < 3; attempt++) {
          const sent = performance.now();
          const outcome = await store.grow(lease.key, want, !lease.persisted);
          if (outcome === 'gone') {
            kill(lease);
            lease = mark(newLease(agentCode, period));
            continue;
          }
          if (outcome === 'grown') {
            lease.persisted = true;
            lease.grantedUsd += want;
            lease.grownAt = sent;
            lease.settledSinceGrowUsd = 0;
            lease.deadline = sent + validFor;
            return lease;
          }
          // The month's row may not exist yet (the first request of a month): open it, try once more.
          if (attempt > 0) break;
          await openPeriod();
        }
        lease = mark(leases.get(name) ?? lease);
      }
      return undefined;
    } finally {
      for (const l of marked) l.growing = false;
    }
  }

  /** Runs `work` for one agent at a time, so concurrent requests grow a lease once, not each. */
  async function serialised<T>(name: string, work: () => Promise<T>): Promise<T> {
    const before = growing.get(name) ?? Promise.resolve();
    const run = before.then(work, work);
    growing.set(name, run.catch(() => undefined));
    return run;
  }

  /** Failed settlements in a row: retries back off (to 5 s) and the failure is logged once until one succeeds. */
  let failures = 0;
  function scheduleFlush(): void {
    if (flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = undefined;
      void flush();
    }, failures ? Math.min(5000, flushMs * 2 ** failures) : flushMs);
    flushTimer.unref(); // a graceful stop flushes; the timer must not keep a process alive
  }

  /** Writes what was answered since the last flush, one transaction; leases in use are kept alive. */
  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      const batch: LeaseSettlement[] = [];
      for (const lease of byId.values()) {
        if (!lease.entries.length) continue;
        batch.push({ lease: lease.key, costUsd: lease.pendingUsd, entries: lease.entries });
        lease.entries = [];
      }
      if (!batch.length) return;
      try {
        const sent = performance.now();
        const { spent, fenced } = await store.settle(batch);
        for (const { lease: key, costUsd } of batch) {
          const lease = byId.get(key.id);
          if (!lease) continue;
          lease.pendingUsd -= costUsd;
          lease.settledSinceGrowUsd += costUsd;
          lease.grantedUsd = Math.max(0, lease.grantedUsd - costUsd);
          if (fenced.includes(key.id)) kill(lease);
          else lease.deadline = Math.max(lease.deadline, sent + validFor);
        }
        for (const s of spent) options.onSettled?.(s);
        if (failures) log.info({ failedAttempts: failures }, 'budget settlement written again');
        failures = 0;
      } catch (error) {
        // The answered requests stay unsettled; their lease holds their cost, and if this process
        // dies before a later flush succeeds, the sweep charges the lease in full.
        for (const { lease: key, entries } of batch) byId.get(key.id)?.entries.unshift(...entries);
        if (!failures++) log.error({ reason: (error as Error).message, leases: batch.length }, 'budget settlement failed; retrying with backoff until it is written');
        scheduleFlush();
      }
    });
    return flushing;
  }

  /** Gives back leases nothing uses any more (retired ones as soon as they are empty); dead ones are only forgotten. */
  async function tidy(): Promise<void> {
    const now = Date.now();
    for (const [id, lease] of byId) {
      const name = `${lease.key.agentCode}|${lease.key.period}`;
      const current = leases.get(name) === lease;
      const empty = lease.heldUsd <= 1e-9 && lease.pendingUsd <= 1e-9 && !lease.entries.length;
      if (!empty || lease.growing || (current && now - lease.lastUsed < idleMs)) continue;
      byId.delete(id);
      if (current) leases.delete(name);
      if (lease.persisted && !lease.dead) await store.giveBack(lease.key).catch((error: unknown) => log.warn({ reason: (error as Error).message, lease: id }, 'could not give a budget lease back; it expires'));
    }
  }
  let tidying = false;
  const tidier = setInterval(() => {
    if (tidying) return;
    tidying = true;
    void tidy().finally(() => (tidying = false));
  }, Math.min(idleMs, ttlMs / 3));
  tidier.unref();

  /**
   * Keeps this instance's leases alive, on the store's renewal path (its own connection): never
   * behind a settlement or a give-back waiting for a period row. A lease found gone was swept.
   */
  async function renewAll(): Promise<void> {
    const live = [...byId.values()].filter((l) => l.persisted && !l.dead);
    if (!live.length) return;
    const sent = performance.now();
    try {
      const present = await store.renew(live.map((l) => l.key.id));
      for (const lease of live) {
        if (present.has(lease.key.id)) lease.deadline = Math.max(lease.deadline, sent + validFor);
        else if (byId.has(lease.key.id)) kill(lease);
      }
    } catch (error) {
      log.warn({ reason: (error as Error).message }, 'could not renew budget leases');
    }
  }
  let renewing = false;
  const renewer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    void renewAll().finally(() => (renewing = false));
  }, ttlMs / 4);
  renewer.unref();

  return {
    /** Admits a request costing at most `amountUsd`, or undefined when the hard limit refuses it. */
    async admit(agentCode: string, period: string, amountUsd: number, openPeriod: () => Promise<void>): Promise<Reservation | undefined> {
      const name = `${agentCode}|${period}`;
      const hold = (lease: Lease): Reservation => {
        lease.heldUsd += amountUsd;
        lease.lastUsed = Date.now();
        return { id: randomUUID(), agentCode, period, amountUsd, leaseId: lease.key.id };
      };
      const usable = (lease: Lease | undefined): lease is Lease => !!lease && !lease.dead && performance.now() < lease.deadline;
      const lease = leases.get(name);
      if (usable(lease) && fits(lease, amountUsd)) return hold(lease);
      return serialised(name, async () => {
        const current = leases.get(name);
        // Past its local deadline the lease may have been swept (a stall): ask before relying on it.
        if (current && current.persisted && !usable(current)) await revalidate(current);
        const valid = leases.get(name);
        if (usable(valid) && fits(valid, amountUsd)) return hold(valid);
        // The lease grown, not the map's current one: the tidier or a renewal may have changed that meanwhile.
        const grown = await grow(agentCode, period, amountUsd, openPeriod);
        return grown ? hold(grown) : undefined;
      });
    },

    /** The request was answered: its hold becomes its cost, written in the next batch. */
    settle(reservation: Reservation, entry: UsageEntry): void {
      const lease = byId.get(reservation.leaseId);
      if (!lease) return log.error({ agentCode: reservation.agentCode }, 'settlement for a lease this instance no longer has');
      lease.heldUsd -= reservation.amountUsd;
      lease.pendingUsd += entry.costUsd;
      lease.entries.push(entry);
      lease.lastUsed = Date.now();
      scheduleFlush();
    },

    /** The request failed before any output: its hold is free again (the entry, if any, is recorded at no cost). */
    release(reservation: Reservation, entry?: UsageEntry): void {
      const lease = byId.get(reservation.leaseId);
      if (!lease) return;
      lease.heldUsd -= reservation.amountUsd;
      if (entry) {
        lease.entries.push({ ...entry, costUsd: 0 });
        scheduleFlush();
      }
    },

    /** Writes what was answered so far (before reporting an agent's spending, e.g. on a refusal). */
    flush,

    /**
     * The agent's budget changed: new requests are admitted against a new lease, grown under the
     * new limit; the current one is retired and given back once its requests have settled.
     */
    async retire(agentCode: string): Promise<void> {
      for (const [name, lease] of leases) if (lease.key.agentCode === agentCode) leases.delete(name);
      await flush();
      await tidy();
    },

    /** Writes everything answered and gives every lease back (a graceful stop, after the server closed). */
    async close(): Promise<void> {
      clearInterval(tidier);
      clearInterval(renewer);
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = undefined;
      await flush();
      leases.clear();
      for (const [id, lease] of byId) {
        byId.delete(id);
        if (lease.persisted && !lease.dead) await store.giveBack(lease.key).catch((error: unknown) => log.warn({ reason: (error as Error).message }, 'could not give a budget lease back; the sweep charges it'));
      }
    },
  };
}

export type LeaseBook = ReturnType<typeof createLeaseBook>;
