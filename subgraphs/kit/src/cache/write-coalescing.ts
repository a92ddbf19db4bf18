import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';

/**
 * Lets the fire-and-forget commands sent to a Redis connection in one turn of the event loop
 * leave in one socket write: the first such command corks the connection's socket, and it is
 * uncorked in the same turn's check phase (setImmediate), so Node writes everything buffered
 * with one `writev`. Under load many answers finish per turn, and a write system call per
 * command (a response-cache write, a rate-limit settlement) was a large share of the gateway's
 * CPU. Commands still go out in the order they were sent; nothing waits longer than the rest of
 * the turn. Call the returned function just before sending such a command.
 */
export function writeCoalescer(redis: Redis): () => void {
  let corked: Socket | undefined;
  return () => {
    const stream = (redis as unknown as { stream?: Socket }).stream;
    if (corked || !stream || redis.status !== 'ready') return;
    corked = stream;
    stream.cork();
    setImmediate(() => {
      corked = undefined;
      stream.uncork();
    });
  };
}
