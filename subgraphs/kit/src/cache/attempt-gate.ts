/**
 * A growing-delay gate over repeated attempts (login throttling): the first `freeAttempts`
 * attempts pass at once; from then on each counted attempt closes the gate for
 * `firstDelayMs`, doubling up to `maxDelayMs`, and an attempt while it is closed is refused
 * and not counted. Attempts are counted when they start (pessimistically, as failures), so a
 * burst of concurrent attempts cannot slip past the count; a success then settles the key.
 * A key idle for `idleMs` is forgotten: a limit always ends by time, so nobody is locked out
 * for good. Pure: the caches and stores keep the state, this decides.
 */
export interface BackoffPolicy {
  freeAttempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
  idleMs: number;
}

export interface GateState {
  attempts: number;
  /** Epoch ms before which attempts are refused. */
  nextAt: number;
}

export interface GateResult {
  allowed: boolean;
  /** Attempts counted in the window, this one included when allowed. */
  attempts: number;
  /** Allowed: how long this attempt closed the gate (0: still open). Refused: ms until it opens. */
  delayMs: number;
}

/** How a success settles a key: forget it, or take back the one attempt it counted. */
export type GateSettlement = 'reset' | 'forgive';

export function delayAfter(attempts: number, policy: BackoffPolicy): number {
  if (attempts < policy.freeAttempts) return 0;
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(40, attempts - policy.freeAttempts));
}

export function gateStep(state: GateState | undefined, now: number, policy: BackoffPolicy): { state: GateState; result: GateResult } {
  const current = state ?? { attempts: 0, nextAt: 0 };
  if (now < current.nextAt) return { state: current, result: { allowed: false, attempts: current.attempts, delayMs: current.nextAt - now } };
  const attempts = current.attempts + 1;
  const delayMs = delayAfter(attempts, policy);
  return { state: { attempts, nextAt: now + delayMs }, result: { allowed: true, attempts, delayMs } };
}

/** The state after a success; undefined: forget the key. */
export function settleStep(state: GateState | undefined, how: GateSettlement, policy: BackoffPolicy): GateState | undefined {
  if (!state || how === 'reset') return undefined;
  const attempts = Math.max(0, state.attempts - 1);
  if (attempts === 0) return undefined;
  return { attempts, nextAt: attempts < policy.freeAttempts ? 0 : state.nextAt };
}

/** How long a key's state must be kept: its closed gate, then the idle time. */
export function keepMs(state: GateState, now: number, policy: BackoffPolicy): number {
  return Math.max(0, state.nextAt - now) + policy.idleMs;
}
