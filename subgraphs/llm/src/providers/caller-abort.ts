/**
 * The error every provider throws when the caller's signal aborted: the signal's reason when it
 * is an Error, else an AbortError `DOMException` (never an UpstreamError, which would be retried).
 */
export function callerAbortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}
