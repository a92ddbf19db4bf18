import type { IncomingMessage } from 'node:http';

/**
 * The caller's address: the peer, or, when the peer is a trusted proxy (the bridge, Varnish),
 * the last untrusted hop of X-Forwarded-For.
 */
export function clientIp(req: IncomingMessage, isTrusted: (address: string | undefined) => boolean): string | undefined {
  const peer = req.socket.remoteAddress;
  if (!isTrusted(peer)) return peer;
  return forwardedClientIp(req.headers['x-forwarded-for'], isTrusted) ?? peer;
}

/**
 * The last untrusted hop of an X-Forwarded-For chain (or its first hop when every hop is
 * trusted), for a caller that is trusted itself: a proxy, or the bridge in the same process.
 */
export function forwardedClientIp(forwardedFor: string | string[] | undefined, isTrusted: (address: string | undefined) => boolean): string | undefined {
  const forwarded = String(forwardedFor ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!isTrusted(forwarded[i])) return forwarded[i];
  }
  return forwarded[0];
}
