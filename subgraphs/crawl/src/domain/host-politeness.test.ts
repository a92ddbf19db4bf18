import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { SvcError } from '@svc/kit';
import { createHostLimiter } from './host-politeness.js';

/** A task that records its start time and finishes when told to. */
function controllable(log: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const task = () => {
    log.push(`${name}@${Date.now()}`);
    return done;
  };
  return { task, finish: () => finish(name), fail: (e: Error) => fail(e) };
}

/** Lets queued promise callbacks run without moving the clock. */
const settle = () => jest.advanceTimersByTimeAsync(0);

describe('createHostLimiter (fake timers)', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('pause holds every start on that host until it ends, other hosts run, a shorter pause never shortens it', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 5, delayMs: 0 });
    const log: string[] = [];
    limiter.pause('blocked.example', 5000);
    limiter.pause('BLOCKED.example', 1000);
    expect(limiter.pausedFor('blocked.example')).toBe(5000);
    const waiting = limiter.run('blocked.example', async () => log.push(`blocked@${Date.now()}`));
    const other = limiter.run('other.example', async () => log.push(`other@${Date.now()}`));
    await settle();
    expect(log).toEqual(['other@0']);
    await jest.advanceTimersByTimeAsync(4999);
    expect(log).toEqual(['other@0']);
    expect(limiter.pausedFor('blocked.example')).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    await Promise.all([waiting, other]);
    expect(log).toEqual(['other@0', 'blocked@5000']);
    expect(limiter.pausedFor('blocked.example')).toBe(0);
  });

  it('spaces task starts on one host by delayMs, the first starting at once', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 5, delayMs: 1000 });
    const log: string[] = [];
    const results = ['a', 'b', 'c'].map((name) => limiter.run('example.com', async () => (log.push(`${name}@${Date.now()}`), name)));
    await settle();
    expect(log).toEqual(['a@0']);
    await jest.advanceTimersByTimeAsync(999);
    expect(log).toEqual(['a@0']);
    await jest.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['a@0', 'b@1000']);
    await jest.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['a@0', 'b@1000', 'c@2000']);
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c']);
  });

  it('keeps at most concurrencyPerHost tasks in flight on one host', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 2, delayMs: 0 });
    const log: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((name) => controllable(log, name));
    const results = tasks.map((t) => limiter.run('example.com', t.task));
    await settle();
    expect(log).toEqual(['a@0', 'b@0']);
    expect(limiter.load('example.com')).toEqual({ active: 2, queued: 2 });
    await jest.advanceTimersByTimeAsync(5000);
    expect(log).toHaveLength(2);
    tasks[1]!.finish();
    await jest.advanceTimersByTimeAsync(10);
    expect(log).toEqual(['a@0', 'b@0', 'c@5000']);
    tasks[0]!.finish();
    tasks[2]!.finish();
    await settle();
    expect(log).toEqual(['a@0', 'b@0', 'c@5000', 'd@5010']);
    tasks[3]!.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(limiter.load('example.com')).toEqual({ active: 0, queued: 0 });
  });

  it('applies both limits together: a freed slot still waits for the delay', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 1000 });
    const log: string[] = [];
    const [a, b] = [controllable(log, 'a'), controllable(log, 'b')];
    void limiter.run('h', a.task);
    const second = limiter.run('h', b.task);
    await jest.advanceTimersByTimeAsync(3000);
    expect(log).toEqual(['a@0']); // delay passed, but the only slot is busy
    a.finish();
    await settle();
    expect(log).toEqual(['a@0', 'b@3000']);
    b.finish();
    await second;

    // A task that finishes quickly does not shorten the spacing between starts.
    const c = controllable(log, 'c');
    const d = controllable(log, 'd');
    void limiter.run('h', c.task);
    void limiter.run('h', d.task);
    await jest.advanceTimersByTimeAsync(1000);
    expect(log.slice(2)).toEqual(['c@4000']);
    await jest.advanceTimersByTimeAsync(100);
    c.finish();
    await jest.advanceTimersByTimeAsync(899);
    expect(log.slice(2)).toEqual(['c@4000']);
    await jest.advanceTimersByTimeAsync(1);
    expect(log.slice(2)).toEqual(['c@4000', 'd@5000']);
    d.finish();
  });

  it('never makes different hosts wait for each other', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 10_000 });
    const log: string[] = [];
    const slow = controllable(log, 'a1');
    void limiter.run('a.example', slow.task);
    void limiter.run('a.example', async () => log.push(`a2@${Date.now()}`));
    void limiter.run('b.example', async () => log.push(`b1@${Date.now()}`));
    void limiter.run('c.example:8080', async () => log.push(`c1@${Date.now()}`));
    await settle();
    expect(log).toEqual(['a1@0', 'b1@0', 'c1@0']);
    slow.finish();
  });

  it('treats host keys case-insensitively', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 500 });
    const log: string[] = [];
    void limiter.run('Example.COM', async () => log.push(`a@${Date.now()}`));
    void limiter.run('example.com', async () => log.push(`b@${Date.now()}`));
    await jest.advanceTimersByTimeAsync(500);
    expect(log).toEqual(['a@0', 'b@500']);
  });

  it('setDelay raises the delay for one host (robots.txt crawl-delay), including for tasks already waiting', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 4, delayMs: 1000 });
    const log: string[] = [];
    const run = (host: string, name: string) => limiter.run(host, async () => log.push(`${name}@${Date.now()}`));
    void run('slow.example', 's1');
    void run('slow.example', 's2');
    void run('other.example', 'o1');
    void run('other.example', 'o2');
    await settle();
    limiter.setDelay('slow.example', 5000);
    expect(limiter.delayFor('slow.example')).toBe(5000);
    expect(limiter.delayFor('other.example')).toBe(1000);
    await jest.advanceTimersByTimeAsync(1000);
    expect(log).toEqual(['s1@0', 'o1@0', 'o2@1000']);
    await jest.advanceTimersByTimeAsync(4000);
    expect(log).toEqual(['s1@0', 'o1@0', 'o2@1000', 's2@5000']);
  });

  it('setDelay cannot go below the default; a smaller value restores it', () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 1000 });
    limiter.setDelay('h', 200);
    expect(limiter.delayFor('h')).toBe(1000);
    limiter.setDelay('h', 3000);
    expect(limiter.delayFor('H')).toBe(3000);
    limiter.setDelay('h', 0);
    expect(limiter.delayFor('h')).toBe(1000);
  });

  it('starts waiting tasks in the order they were submitted', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 10 });
    const order: number[] = [];
    const all = Array.from({ length: 6 }, (_, i) => limiter.run('h', async () => void order.push(i)));
    await jest.advanceTimersByTimeAsync(100);
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('frees the slot when a task rejects or throws, and passes the error on', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 0 });
    const rejected = limiter.run('h', async () => {
      throw new Error('boom');
    });
    const thrown = limiter.run('h', () => {
      throw new Error('sync boom');
    });
    const after = limiter.run('h', async () => 'still runs');
    const [r1, r2, r3] = await Promise.allSettled([rejected, thrown, after]);
    expect(r1).toMatchObject({ status: 'rejected', reason: { message: 'boom' } });
    expect(r2).toMatchObject({ status: 'rejected', reason: { message: 'sync boom' } });
    expect(r3).toEqual({ status: 'fulfilled', value: 'still runs' });
    expect(limiter.load('h')).toEqual({ active: 0, queued: 0 });
  });

  it('remembers the last start across idle periods', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 1000 });
    const log: string[] = [];
    await limiter.run('h', async () => log.push(`a@${Date.now()}`));
    await jest.advanceTimersByTimeAsync(400);
    const next = limiter.run('h', async () => log.push(`b@${Date.now()}`));
    await jest.advanceTimersByTimeAsync(599);
    expect(log).toEqual(['a@0']);
    await jest.advanceTimersByTimeAsync(1);
    await next;
    expect(log).toEqual(['a@0', 'b@1000']);
    await jest.advanceTimersByTimeAsync(5000);
    await limiter.run('h', async () => log.push(`c@${Date.now()}`));
    expect(log).toEqual(['a@0', 'b@1000', 'c@6000']); // long idle: no wait
  });

  it('forgets idle hosts once many are tracked, but not their spacing or crawl-delays', async () => {
    const limiter = createHostLimiter({ concurrencyPerHost: 1, delayMs: 100 });
    limiter.setDelay('kept.example', 5000);
    for (let i = 0; i < 1500; i++) await limiter.run(`host${i}.example`, async () => i);
    expect(limiter.trackedHosts()).toBe(1500);
    await jest.advanceTimersByTimeAsync(100);
    // A new host triggers a pruning pass: every host whose delay has passed goes.
    await limiter.run('recent.example', async () => 0);
    expect(limiter.trackedHosts()).toBe(1);
    expect(limiter.delayFor('kept.example')).toBe(5000);
    // The next pass (1000 more hosts, no time passing) must keep recent.example: its delay is still running.
    for (let i = 0; i < 1000; i++) await limiter.run(`more${i}.example`, async () => i);
    expect(limiter.trackedHosts()).toBe(1001);
    const log: string[] = [];
    const again = limiter.run('recent.example', async () => log.push(`again@${Date.now()}`));
    await settle();
    expect(log).toEqual([]);
    await jest.advanceTimersByTimeAsync(100);
    await again;
    expect(log).toEqual(['again@200']);
  });
});

describe('createHostLimiter (injected clock)', () => {
  it('uses the injected now and sleep', async () => {
    let clock = 1_000_000;
    const sleeps: number[] = [];
    const limiter = createHostLimiter({
      concurrencyPerHost: 1,
      delayMs: 250,
      now: () => clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
    });
    const starts: number[] = [];
    await Promise.all([1, 2, 3].map(() => limiter.run('h', async () => void starts.push(clock))));
    expect(starts).toEqual([1_000_000, 1_000_250, 1_000_500]);
    expect(sleeps).toEqual([250, 250]);
  });

  it('recovers when the injected sleep rejects', async () => {
    let clock = 0;
    const limiter = createHostLimiter({
      concurrencyPerHost: 1,
      delayMs: 10,
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
        throw new Error('timer cancelled');
      },
    });
    await expect(Promise.all([limiter.run('h', async () => 1), limiter.run('h', async () => 2)])).resolves.toEqual([1, 2]);
  });
});

describe('createHostLimiter options', () => {
  it.each([
    [{ concurrencyPerHost: 0, delayMs: 0 }, 'concurrencyPerHost must be an integer of at least 1; got 0'],
    [{ concurrencyPerHost: 1.5, delayMs: 0 }, 'concurrencyPerHost must be an integer of at least 1; got 1.5'],
    [{ concurrencyPerHost: 1, delayMs: -1 }, 'delayMs must be a finite number of at least 0; got -1'],
    [{ concurrencyPerHost: 1, delayMs: Number.POSITIVE_INFINITY }, 'delayMs must be a finite number of at least 0; got Infinity'],
  ])('refuses %j', (options, message) => {
    let caught: unknown;
    try {
      createHostLimiter(options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SvcError);
    expect((caught as SvcError).code).toBe('BAD_USER_INPUT');
    expect((caught as SvcError).message).toBe(message);
  });
});
