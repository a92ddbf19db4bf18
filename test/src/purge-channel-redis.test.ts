import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createLogger, createPurgeChannel, type PurgeChannel } from '@svc/kit';
import { eventually } from './support/eventually.js';
import { REDIS_URL, requireRedis } from './support/services.js';

/**
 * Purge announcements over a real Redis: what another process publishes is heard, a lost
 * subscription is reported (so the bridge stops serving from memory) and comes back by itself.
 */

const prefix = `svctest:purge:${process.pid}:${Date.now()}:`;
let channel: PurgeChannel;
let raw: Redis;
const heard: boolean[] = [];
const purged: string[][] = [];

beforeAll(async () => {
  await requireRedis();
  raw = new Redis(REDIS_URL);
  channel = createPurgeChannel({ redisUrl: REDIS_URL, prefix, log: createLogger({ level: 'silent' }) });
  channel.subscribe({ purge: (keys) => purged.push([...keys]), heard: (now) => heard.push(now) });
});
afterAll(async () => {
  await channel?.close();
  raw?.disconnect();
});

describe('createPurgeChannel on Redis', () => {
  it('hears what another process announces once subscribed, and ignores a message that is no list of keys', async () => {
    await eventually(() => JSON.stringify(heard) === '[true]', 10_000, 'the subscription');
    await raw.publish(`${prefix}svc:purge`, 'not json');
    await raw.publish(`${prefix}svc:purge`, JSON.stringify(['svc-content-demo-welcome']));
    await eventually(() => purged.length > 0, 10_000, 'the announcement');
    expect(purged).toEqual([['svc-content-demo-welcome']]);
  });

  it('hears its own process\'s announcement before publish resolves', async () => {
    purged.length = 0;
    await channel.publish(['svc-content-demo-about']);
    expect(purged[0]).toEqual(['svc-content-demo-about']);
  });

  it('says when the subscription is lost and when it is back', async () => {
    const clients = (await raw.client('LIST')) as string;
    const id = clients.split('\n').find((line) => line.includes(`name=${prefix}svc:purge:subscriber`))?.match(/\bid=(\d+)/)?.[1];
    expect(id).toBeDefined();
    await raw.client('KILL', 'ID', id!);
    await eventually(() => heard.length >= 3, 10_000, 'the subscription to come back');
    expect(heard).toEqual([true, false, true]);
    purged.length = 0;
    await raw.publish(`${prefix}svc:purge`, JSON.stringify(['svc-content-demo-pricing']));
    await eventually(() => purged.length > 0, 10_000, 'the announcement');
    expect(purged).toEqual([['svc-content-demo-pricing']]);
  });
});
