import { describe, expect, it } from '@jest/globals';
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
