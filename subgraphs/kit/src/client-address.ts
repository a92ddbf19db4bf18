import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The client address the router derives (from the peer, or X-Forwarded-For of a trusted proxy)
 * reaches the subgraphs as `x-svc-client-ip`. A subgraph believes that header only when the
 * router signed it: `x-svc-client-ip-signature: <unix seconds>.<hex HMAC-SHA256>` over
 * `<seconds>.<address>`, keyed by a key derived from SVC_JWT_SECRET (the secret the platform's
 * processes already share). Anyone else reaching a subgraph port directly is judged by its
 * socket address, so a forged header cannot dodge per-client rate limits. Signatures older or
 * newer than {@link CLIENT_ADDRESS_MAX_AGE_SECONDS} are refused, bounding replays. Without a
 * shared secret (SVC_JWKS_URL only) no signature can be made or checked: subgraphs then use
 * the socket address.
 */
export const CLIENT_IP_HEADER = 'x-svc-client-ip';
export const CLIENT_IP_SIGNATURE_HEADER = 'x-svc-client-ip-signature';
export const CLIENT_ADDRESS_MAX_AGE_SECONDS = 300;

export type ClientAddressKey = Buffer;

/** The signing key, derived so that the JWT secret itself never signs anything but tokens. */
export function clientAddressKey(jwtSecret: string): ClientAddressKey {
  return createHmac('sha256', jwtSecret).update('svc-platform client address v1').digest();
}

function mac(key: ClientAddressKey, seconds: number, address: string): string {
  return createHmac('sha256', key).update(`${seconds}.${address}`).digest('hex');
}

/** The signature header value for `address`. */
export function signClientAddress(key: ClientAddressKey, address: string, nowMs = Date.now()): string {
  const seconds = Math.floor(nowMs / 1000);
  return `${seconds}.${mac(key, seconds, address)}`;
}

/**
 * `signClientAddress` for a process that signs at every request (the router): a signature is the
 * same for one address within one second, so each is made once a second (at most 1,000 addresses
 * a second are kept; the rest are signed each time).
 */
export function clientAddressSigner(key: ClientAddressKey, now: () => number = Date.now): (address: string) => string {
  let second = -1;
  const made = new Map<string, string>();
  return (address) => {
    const nowMs = now();
    const current = Math.floor(nowMs / 1000);
    if (current !== second) {
      second = current;
      made.clear();
    }
    let signature = made.get(address);
    if (signature === undefined) {
      signature = signClientAddress(key, address, nowMs);
      if (made.size < 1000) made.set(address, signature);
    }
    return signature;
  };
}

/** Whether `signature` is the router's, for `address`, and recent. */
export function isSignedClientAddress(key: ClientAddressKey | undefined, address: string | undefined, signature: string | undefined, nowMs = Date.now()): boolean {
  if (!key || !address || !signature) return false;
  const match = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(signature);
  if (!match) return false;
  const seconds = Number(match[1]);
  if (Math.abs(nowMs / 1000 - seconds) > CLIENT_ADDRESS_MAX_AGE_SECONDS) return false;
  return timingSafeEqual(Buffer.from(match[2]!, 'hex'), Buffer.from(mac(key, seconds, address), 'hex'));
}
