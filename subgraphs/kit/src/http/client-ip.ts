import type { IncomingMessage } from 'node:http';

/**
 * The caller's address: the peer, or, when the peer is a trusted proxy (the bridge, Varnish),
 * the last untrusted hop of X-Forwarded-For.
 */
export function clientIp(req: IncomingMessage, isTrusted: (address: string | undefined) => boolean): string | undefined {
  const peer = req.socket.remoteAddress;
  if (!isTrusted(peer)) return peer;
  const forwarded = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    if (!isTrusted(forwarded[i])) return forwarded[i];
  }
  return forwarded[0] ?? peer;
}
