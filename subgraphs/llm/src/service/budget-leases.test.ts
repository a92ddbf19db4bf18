import { afterEach, describe, expect, it } from '@jest/globals';
import { createLogger } from '@svc/kit';
import type { GrowOutcome, LeaseKey, LeaseSettlement, LeaseStore } from '../store/lease-store.js';
import { createLeaseBook } from './budget-leases.js';

/**
 * The lease book against an in-memory store whose grows can be held back, so a race the real
 * database only shows under load can be played in order: the tidier running while a lease grows.
 */
function heldBackStore() {
  let release: (() => void) | undefined;
  const calls = { grow: [] as { id: string; amountUsd: number }[], giveBack: [] as string[], settle: [] as LeaseSettlement[] };
  const rows = new Set<string>();
  const store = {
    async grow(lease: LeaseKey, amountUsd: number): Promise<GrowOutcome> {
      calls.grow.push({ id: lease.id, amountUsd });
      if (calls.grow.length > 1) await new Promise<void>((resolve) => (release = resolve));
      rows.add(lease.id);
      return 'grown';
    },
    async settle(batch: readonly LeaseSettlement[]) {
      calls.settle.push(...batch);
      return { spent: [], fenced: [] };
    },
    async giveBack(lease: LeaseKey) {
      calls.giveBack.push(lease.id);
      rows.delete(lease.id);
    },
    async renew(ids: readonly string[]) {
      return new Set(ids.filter((id) => rows.has(id)));
    },
  } as unknown as LeaseStore;
  return { store, calls, release: () => release?.() };
}

const log = createLogger({ level: 'silent' });
const books: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const book of books.splice(0)) await book.close();
});

describe('budget leases', () => {
  it('never gives back a lease while it grows for a request: the request is held on the lease that was grown', async () => {
    const { store, calls, release } = heldBackStore();
    // Idle leases are given back at once, and the tidier looks every 10 ms.
    const book = createLeaseBook({ store, instance: 'test', log, sliceFactor: 1, idleMs: 10 });
    books.push(book);
    const first = await book.admit('agent-a', '2026-11', 1, async () => undefined);
    expect(first).toBeDefined();
    book.settle(first!, { kind: 'chat', requestedModel: 'm', promptTokens: 1, completionTokens: 1, costUsd: 0, cached: false, outcome: 'ok' });
    await book.flush();

    // The lease is empty and idle; a larger request must grow it, and that grow is held back
    // while the tidier runs several times.
    const second = book.admit('agent-a', '2026-11', 5, async () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(calls.grow).toHaveLength(2);
    expect(calls.giveBack).toEqual([]);
    release();
    const held = await second;
    expect(held).toMatchObject({ agentCode: 'agent-a', amountUsd: 5, leaseId: calls.grow[1]!.id });

    // The lease it is held on is still the book's: its settlement is written under it.
    book.settle(held!, { kind: 'chat', requestedModel: 'm', promptTokens: 1, completionTokens: 1, costUsd: 0.5, cached: false, outcome: 'ok' });
    await book.flush();
    expect(calls.settle.at(-1)).toMatchObject({ lease: { id: held!.leaseId }, costUsd: 0.5 });
  });

  it("grows a busy agent's lease by about a second of its spending, not once per 32 requests' worst case", async () => {
    /** 1,000 requests of worst case $1 costing $0.50 each, 25 at a time every 10 ms (about $1,250 a second); the grows it took. */
    async function grows(sliceMs: number): Promise<number> {
      let growCalls = 0;
      const store = {
        grow: async () => (growCalls++, 'grown' as const),
        settle: async () => ({ spent: [], fenced: [] }),
        giveBack: async () => undefined,
        renew: async (ids: readonly string[]) => new Set(ids),
      } as unknown as LeaseStore;
      const book = createLeaseBook({ store, instance: 'test', log, sliceMs, flushMs: 1 });
      books.push(book);
      for (let round = 0; round < 40; round++) {
        const holds = await Promise.all(Array.from({ length: 25 }, () => book.admit('busy', '2026-11', 1, async () => undefined)));
        for (const hold of holds) book.settle(hold!, { kind: 'chat', requestedModel: 'm', promptTokens: 1, completionTokens: 1, costUsd: 0.5, cached: false, outcome: 'ok' });
        await book.flush();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return growCalls;
    }
    // By worst cases alone ($32 a grow, $500 spent) it grows every few rounds; by its spending, a few times in all.
    expect(await grows(0)).toBeGreaterThanOrEqual(15);
    expect(await grows(1000)).toBeLessThanOrEqual(4);
  });
});
