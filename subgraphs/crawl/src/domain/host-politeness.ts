import { SvcError } from '@svc/kit';

/**
 * Per-host politeness for the crawler: at most `concurrencyPerHost` requests in flight to one
 * host, and at least the host's delay between the starts of two requests to it. Hosts never
 * wait for each other. Pure and in-memory: time comes from `now`/`sleep`, injectable for tests.
 *
 * Decisions:
 * - The key is the string the caller passes, lower-cased. The crawler should pass the URL's
 *   `host` (hostname and port), the unit robots.txt and servers are counted in.
 * - The delay is measured between starts, not from the end of one task to the start of the
 *   next: the spacing a site sees stays steady however slowly it answers, and concurrency caps
 *   the pile-up. The first task on a host starts at once.
 * - `setDelay(host, ms)` (a robots.txt crawl-delay) can only raise the delay above the
 *   limiter's `delayMs`, never lower it; setting a smaller value returns the host to the
 *   default. A new delay applies to the next start, including tasks already waiting.
 * - Tasks on one host start in the order `run` was called (FIFO). A task that throws or
 *   rejects frees its slot, and `run` rejects with the same error.
 * - Waiting tasks cannot be cancelled here; a cancelled job should make its tasks return early.
 * - `pause(host, ms)` holds every start on a host until then (a site that answered with a block
 *   page or a Retry-After); a later, shorter pause never shortens one in force.
 * - Idle hosts whose delay has passed are forgotten once many hosts are tracked, so long crawls
 *   do not accumulate state; crawl-delays set with `setDelay` are kept.
 */

export interface HostLimiterOptions {
  /** Requests in flight per host; an integer of at least 1. */
  concurrencyPerHost: number;
  /** Minimum milliseconds between request starts on one host; 0 or more. */
  delayMs: number;
  /** Clock in milliseconds; default `Date.now`. */
  now?: () => number;
  /** Waits `ms` milliseconds; default a `setTimeout` promise. */
  sleep?: (ms: number) => Promise<void>;
}

export interface HostLimiter {
  /** Runs `task` when `host` has a free slot and its delay since the previous start has passed. */
  run<T>(host: string, task: () => Promise<T>): Promise<T>;
  /** Raises the delay for one host (e.g. robots.txt crawl-delay); below the default it resets to the default. */
  setDelay(host: string, ms: number): void;
  /** Starts nothing on `host` for `ms` milliseconds from now (a longer pause in force stays). */
  pause(host: string, ms: number): void;
  /** Milliseconds until `host` may start a request again because of a pause (0 when none). */
  pausedFor(host: string): number;
  /** The delay in force for `host`, in milliseconds. */
  delayFor(host: string): number;
  /** Tasks running and waiting for `host`. */
  load(host: string): { active: number; queued: number };
  /** How many hosts the limiter holds state for (idle ones are pruned, see the module comment). */
  trackedHosts(): number;
}

interface Waiting {
  start: () => void;
}

interface HostState {
  active: number;
  lastStart: number | undefined;
  queue: Waiting[];
  sleeping: boolean;
}

/** Hosts tracked before idle ones are pruned. */
const PRUNE_AT = 1000;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createHostLimiter(options: HostLimiterOptions): HostLimiter {
  const { concurrencyPerHost, delayMs } = options;
  if (!Number.isInteger(concurrencyPerHost) || concurrencyPerHost < 1) {
    throw new SvcError('BAD_USER_INPUT', `concurrencyPerHost must be an integer of at least 1; got ${concurrencyPerHost}`);
  }
  if (!Number.isFinite(delayMs) || delayMs < 0) {
    throw new SvcError('BAD_USER_INPUT', `delayMs must be a finite number of at least 0; got ${delayMs}`);
  }
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const states = new Map<string, HostState>();
  const delays = new Map<string, number>();
  const pausedUntil = new Map<string, number>();

  const keyOf = (host: string) => host.trim().toLowerCase();
  const delayOf = (key: string) => Math.max(delayMs, delays.get(key) ?? 0);

  function prune(): void {
    if (states.size < PRUNE_AT) return;
    const t = now();
    for (const [key, until] of pausedUntil) if (until <= t) pausedUntil.delete(key);
    for (const [key, state] of states) {
      const idle = state.active === 0 && state.queue.length === 0 && !state.sleeping;
      if (idle && (state.lastStart === undefined || t - state.lastStart >= delayOf(key))) states.delete(key);
    }
  }

  function pump(key: string, state: HostState): void {
    if (state.sleeping) return;
    while (state.queue.length > 0 && state.active < concurrencyPerHost) {
      const t = now();
      const wait = Math.max(state.lastStart === undefined ? 0 : state.lastStart + delayOf(key) - t, (pausedUntil.get(key) ?? 0) - t);
      if (wait > 0) {
        state.sleeping = true;
        const wake = () => {
          state.sleeping = false;
          pump(key, state);
        };
        sleep(wait).then(wake, wake);
        return;
      }
      const next = state.queue.shift()!;
      state.active++;
      state.lastStart = now();
      next.start();
    }
  }

  function stateOf(key: string): HostState {
    let state = states.get(key);
    if (!state) {
      prune();
      state = { active: 0, lastStart: undefined, queue: [], sleeping: false };
      states.set(key, state);
    }
    return state;
  }

  return {
    run<T>(host: string, task: () => Promise<T>): Promise<T> {
      const key = keyOf(host);
      const state = stateOf(key);
      return new Promise<T>((resolve, reject) => {
        state.queue.push({
          start: () => {
            new Promise<T>((resolveTask) => resolveTask(task()))
              .then(resolve, reject)
              .finally(() => {
                state.active--;
                pump(key, state);
              });
          },
        });
        pump(key, state);
      });
    },
    setDelay(host, ms) {
      const key = keyOf(host);
      if (Number.isFinite(ms) && ms > delayMs) delays.set(key, ms);
      else delays.delete(key);
    },
    pause(host, ms) {
      if (!Number.isFinite(ms) || ms <= 0) return;
      const key = keyOf(host);
      const until = now() + ms;
      if (until > (pausedUntil.get(key) ?? 0)) pausedUntil.set(key, until);
    },
    pausedFor: (host) => Math.max(0, (pausedUntil.get(keyOf(host)) ?? 0) - now()),
    delayFor: (host) => delayOf(keyOf(host)),
    load(host) {
      const state = states.get(keyOf(host));
      return { active: state?.active ?? 0, queued: state?.queue.length ?? 0 };
    },
    trackedHosts: () => states.size,
  };
}
