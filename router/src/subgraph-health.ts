/**
 * What the router knows of its subgraphs' health: each failed call (logged, at most once per
 * subgraph every 10 s with the count since), and the router's `/ready`, which asks each subgraph's
 * own `/ready` (in parallel, each at most `probeTimeoutMs`, the answers kept for a second so a
 * burst of probes asks once). The router serves while a subgraph is down (the others' data, with
 * errors for the missing part), so `/ready` stays 200 and says `status: "degraded"` with
 * `dependencies.<subgraph>: "down (degraded)"`.
 */
import type { Logger } from '@svc/kit';
import type { FailureListener } from './data-source.js';
import { failureMessage, type FailureKind } from './subgraph-failure.js';

export interface SubgraphHealthOptions {
  /** Each subgraph's GraphQL URL; its `/ready` is beside it. */
  urls: Readonly<Record<string, string>>;
  log: Logger;
  /** How long a probe waits for a subgraph's `/ready`. */
  probeTimeoutMs: number;
  /** How often a subgraph's failures are logged at most. Default 10 s. */
  logEveryMs?: number;
}

const PROBE_KEPT_MS = 1000;

export function subgraphHealth(options: SubgraphHealthOptions) {
  const { log, probeTimeoutMs } = options;
  const logEveryMs = options.logEveryMs ?? 10_000;
  const failures = new Map<string, { loggedAt: number; since: number }>();
  let probe: { at: number; states: Promise<Record<string, string>> } | undefined;

  const onFailure: FailureListener = (service: string, failure: FailureKind, cause?: unknown) => {
    const now = Date.now();
    const seen = failures.get(service);
    if (seen && now - seen.loggedAt < logEveryMs) {
      seen.since++;
      return;
    }
    failures.set(service, { loggedAt: now, since: 0 });
    const reason = cause instanceof Error ? cause.message : undefined;
    log.warn({ subgraph: service, failure: failure.kind, reason, failedSinceLastLine: seen?.since ?? 0 }, failureMessage(service, failure));
  };

  async function stateOf(url: string): Promise<string> {
    try {
      const response = await fetch(new URL('/ready', url), { signal: AbortSignal.timeout(probeTimeoutMs) });
      await response.body?.cancel();
      return response.ok ? 'up' : 'down (degraded)';
    } catch {
      return 'down (degraded)';
    }
  }

  async function probeAll(): Promise<Record<string, string>> {
    const names = Object.keys(options.urls).sort();
    const states = await Promise.all(names.map((name) => stateOf(options.urls[name]!)));
    return Object.fromEntries(names.map((name, i) => [name, states[i]!]));
  }

  return {
    onFailure,
    /** Each subgraph's state: `up`, or `down (degraded)`. */
    async dependencies(): Promise<Record<string, string>> {
      const now = Date.now();
      if (!probe || now - probe.at > PROBE_KEPT_MS) probe = { at: now, states: probeAll() };
      return probe.states;
    },
  };
}
