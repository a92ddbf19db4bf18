import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { createLogger } from '../logger.js';
import { createPurgeChannel } from './purge-channel.js';

const log = createLogger({ level: 'silent' });

describe('createPurgeChannel without Redis (every service in one process)', () => {
  it('is heard at once, and what another channel of the process announces arrives before publish resolves', async () => {
    const announcer = createPurgeChannel({ prefix: 'test:', log });
    const listening = createPurgeChannel({ prefix: 'test:', log });
    const heard: boolean[] = [];
    const purged: string[][] = [];
    const stop = listening.subscribe({ purge: (keys) => purged.push([...keys]), heard: (now) => heard.push(now) });
    expect(heard).toEqual([true]);
    await announcer.publish(['svc-content-demo-welcome']);
    expect(purged).toEqual([['svc-content-demo-welcome']]);
    stop();
    await announcer.publish(['svc-content-demo-about']);
    expect(purged).toHaveLength(1);
    await announcer.close();
    await listening.close();
  });
});

describe('createPurgeChannel with Redis unreachable', () => {
  it('never rejects a publish, still tells this process\'s listeners, and logs the failure once', async () => {
    const sink = new PassThrough();
    const lines: string[] = [];
    sink.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    // Port 1: nothing listens there.
    const channel = createPurgeChannel({ redisUrl: 'redis://127.0.0.1:1', prefix: 'test:', log: createLogger({ level: 'info', name: 'test', destination: sink }) });
    const local = createPurgeChannel({ prefix: 'test:', log });
    const purged: string[][] = [];
    const stop = local.subscribe({ purge: (keys) => purged.push([...keys]), heard: () => undefined });
    await channel.publish(['svc-content-demo-welcome']);
    await channel.publish(['svc-content-demo-about']);
    expect(purged).toEqual([['svc-content-demo-welcome'], ['svc-content-demo-about']]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines.filter((l) => l.includes('purge announcements: could not send'))).toHaveLength(1);
    stop();
    await channel.close();
    await local.close();
  });
});
