import { randomUUID } from 'node:crypto';
import { SvcError, type Logger } from '@svc/kit';
import type { AgentCaller } from '../domain/api-key.js';
import { hasLimits, rateLimitHeaders, refusalMessage, resetIn, type LimitScope, type Refusal, type ScopeState } from '../domain/rate-limits.js';
import type { RateWindowStore, ScopeUse } from '../store/rate-window-store.js';

/** An admitted request's place in the windows: settle it once, when it ends, with the tokens it used. */
export interface RateTicket {
  /** `x-ratelimit-*` for the response ({} when no scope has a requests or tokens limit). */
  headers: Record<string, string>;
  /** The request ended: `tokens` (prompt + completion as charged; 0 for a failure or a cache hit) replace the estimate. */
  settle(tokens: number): void;
}

/** Where a route puts the rate-limit headers for whatever response it sends (answer, error or stream). */
export interface ResponseMeta {
  headers?: Record<string, string>;
}

/** A request's scopes: its key's limits and its agent's (a request must fit both). */
export const limitScopes = (caller: AgentCaller): LimitScope[] => [
  { id: `key:${caller.keyId}`, limits: caller.keyLimits },
  { id: `agent:${caller.agentCode}`, limits: caller.agentLimits },
];

const NO_TICKET: RateTicket = { headers: {}, settle: () => undefined };

/** How long a request counts as in flight without its instance renewing it (a crash frees its slots after this), ms. */
export const IN_FLIGHT_TTL_MS = 30_000;

/** No request runs longer than this (the upstream timeout is 10 minutes): a ticket never settled stops being renewed after it. */
const LONGEST_REQUEST_MS = 11 * 60_000;

function stateOf(scope: LimitScope, use: ScopeUse, admitted: { second: number; tokens: number } | undefined, nowMs: number): ScopeState {
  const { requestsPerMinute: rpm, tokensPerMinute: tpm, maxConcurrent: conc } = scope.limits;
  const fresh = admitted?.second;
  const state: ScopeState = {};
  if (rpm !== null) state.requests = { limit: rpm, remaining: rpm - use.requestsUsed - (admitted ? 1 : 0), resetMs: resetIn(use.requestsOldest ?? fresh, nowMs) };
  if (tpm !== null) state.tokens = { limit: tpm, remaining: tpm - use.tokensUsed - (admitted?.tokens ?? 0), resetMs: resetIn(use.tokensOldest ?? (admitted?.tokens ? fresh : undefined), nowMs) };
  if (conc !== null) state.concurrent = { limit: conc, inFlight: use.inFlight + (admitted ? 1 : 0) };
  return state;
}

/** 429 `rate_limit_exceeded`, OpenAI's shape; Retry-After is when the request would fit (1 s for a concurrency limit). */
function rateLimited(refusal: Refusal): SvcError {
  const never = !Number.isFinite(refusal.retryAfterMs);
  return new SvcError('RATE_LIMITED', refusalMessage(refusal), {
    ...(never ? {} : { retryAfter: refusal.retryAfterMs / 1000 }),
    details: { type: refusal.kind === 'tokens' ? 'tokens' : 'requests', param: null, openaiCode: 'rate_limit_exceeded', limit: refusal.limit, scope: refusal.scope },
  });
}

/**
 * Admits requests under the limits of their key and agent (every scope at once, atomically in
 * the window store), and settles them when they end. In-flight requests are renewed every
 * third of their TTL, so a live instance's long streams keep their slots and a dead one's free up.
 */
export function createRateLimiter(store: RateWindowStore, log: Logger) {
  const inFlight = new Map<string, { scopes: string[]; since: number }>();
  const renewer = setInterval(() => {
    const now = Date.now();
    for (const [member, entry] of inFlight) if (now - entry.since > LONGEST_REQUEST_MS) inFlight.delete(member);
    const list = [...inFlight].flatMap(([member, { scopes }]) => scopes.map((scope) => ({ scope, member })));
    if (list.length) void store.renew(list, IN_FLIGHT_TTL_MS).catch((error: unknown) => log.warn({ reason: (error as Error).message }, 'could not renew in-flight rate-limit entries'));
  }, IN_FLIGHT_TTL_MS / 3);
  renewer.unref();

  return {
    store,

    /**
     * Admits one request with `estimate` tokens (the prompt's estimate plus its output limit),
     * or throws 429 with the headers in `meta`. Scopes without limits cost nothing. The
     * estimate is a function: it is only computed when a scope limits tokens.
     */
    async admit(scopes: readonly LimitScope[], estimate: () => number, meta?: ResponseMeta): Promise<RateTicket> {
      const limited = scopes.filter((s) => hasLimits(s.limits));
      if (!limited.length) return NO_TICKET;
      const member = randomUUID();
      // Only a tokens-per-minute limit counts tokens: without one the estimate is never used.
      const countsTokens = limited.some((s) => s.limits.tokensPerMinute !== null);
      const tokens = countsTokens ? Math.max(0, Math.ceil(estimate())) : 0;
      const decision = await store.admit(limited, tokens, member, IN_FLIGHT_TTL_MS);
      if (!decision.admitted) {
        const headers = rateLimitHeaders(limited.map((s, i) => stateOf(s, decision.uses[i]!, undefined, decision.nowMs)));
        if (meta) meta.headers = headers;
        throw rateLimited(decision.refusal);
      }
      const headers = rateLimitHeaders(limited.map((s, i) => stateOf(s, decision.uses[i]!, { second: decision.second, tokens: s.limits.tokensPerMinute !== null ? tokens : 0 }, decision.nowMs)));
      if (meta) meta.headers = headers;
      const concurrent = limited.filter((s) => s.limits.maxConcurrent !== null).map((s) => s.id);
      if (concurrent.length) inFlight.set(member, { scopes: concurrent, since: Date.now() });
      // Requests-per-minute limits alone have nothing to settle: no script call after the answer.
      const settles = limited.some((s) => s.limits.tokensPerMinute !== null || s.limits.maxConcurrent !== null);
      let settled = !settles;
      return {
        headers,
        settle(used: number) {
          if (settled) return;
          settled = true;
          inFlight.delete(member);
          void store.settle(limited, member, decision.second, tokens, Math.max(0, Math.ceil(used))).catch((error: unknown) => log.warn({ reason: (error as Error).message }, 'could not settle a rate-limit entry'));
        },
      };
    },

    async close(): Promise<void> {
      clearInterval(renewer);
      await store.close();
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
