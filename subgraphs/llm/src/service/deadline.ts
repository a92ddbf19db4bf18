/**
 * Runs `call` with a signal that aborts after `ms` with the TimeoutError `AbortSignal.timeout`
 * gives, and clears its timer when the call ends. A plain controller and timer per request:
 * `AbortSignal.timeout` registers every signal with weak references and a finalisation
 * registry, which costs several times more on a hot path.
 */
export async function withDeadline<T>(ms: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  timer.unref();
  try {
    return await call(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
