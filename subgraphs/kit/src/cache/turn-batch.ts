/**
 * Items queued in one turn of the event loop, handed to `send` together in that turn's check
 * phase (or by `flush`): under load many requests finish per turn, and one Redis command for all
 * of them costs the client far less than one each. Nothing waits longer than the rest of the
 * turn, and the items keep their order. `add` resolves once the batch it joined was sent.
 */
export function turnBatch<T>(send: (batch: T[]) => Promise<void>): { add(item: T): Promise<void>; flush(): Promise<void> } {
  let queued: T[] = [];
  let sending: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    const batch = queued;
    queued = [];
    if (batch.length) await send(batch);
  };
  return {
    add(item) {
      if (!queued.length) sending = new Promise((resolve) => setImmediate(() => resolve(flush())));
      queued.push(item);
      return sending;
    },
    flush,
  };
}
