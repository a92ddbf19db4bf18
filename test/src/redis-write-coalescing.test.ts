import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import { writeCoalescer } from '@svc/kit';
import { REDIS_URL, requireRedis } from './support/services.js';

/** Write-coalescing on a real Redis connection: the commands of one turn leave in one socket write, in order. */

let redis: Redis;
let socket: Socket;
let writes = 0;
const prefix = `svctest:coalesce:${process.pid}:${Date.now()}:`;

beforeAll(async () => {
  await requireRedis();
  redis = new Redis(REDIS_URL, { keyPrefix: prefix });
  await redis.ping();
  socket = (redis as unknown as { stream: Socket }).stream;
  // Count what reaches the socket's system-call layer: one _write or _writev per write.
  const write = socket._write.bind(socket);
  const writev = socket._writev!.bind(socket);
  socket._write = (...args) => (writes++, write(...args));
  socket._writev = (...args) => (writes++, writev(...args));
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys.map((k) => k.slice(prefix.length)));
  await redis.quit();
});

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('writeCoalescer', () => {
  it('sends the commands of one turn in one write, in order, and uncorks in that turn', async () => {
    const coalesce = writeCoalescer(redis);
    writes = 0;
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      coalesce();
      sent.push(redis.rpush('order', String(i)));
    }
    expect(writes).toBe(0);
    expect(socket.writableCorked).toBe(1);
    await nextTurn();
    expect(socket.writableCorked).toBe(0);
    expect(writes).toBe(1);
    expect(await Promise.all(sent)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await redis.lrange('order', 0, -1)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });

  it('holds nothing once the turn is over: the next turn corks again, a command without it leaves at once', async () => {
    const coalesce = writeCoalescer(redis);
    coalesce();
    const first = redis.set('a', '1');
    await nextTurn();
    await first;
    writes = 0;
    const direct = redis.set('b', '2');
    expect(writes).toBe(1);
    await direct;
    coalesce();
    const later = redis.set('c', '3');
    expect(socket.writableCorked).toBe(1);
    await nextTurn();
    expect(socket.writableCorked).toBe(0);
    await later;
    expect(await redis.mget('a', 'b', 'c')).toEqual(['1', '2', '3']);
  });
});
