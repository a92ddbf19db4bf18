import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, type Principal, type TokenVerifier } from './auth.js';
import { SvcError } from './errors.js';
import { CLIENT_IP_HEADER, CLIENT_IP_SIGNATURE_HEADER } from './client-address.js';
import type { Logger } from './logger.js';

/** The per-request context every resolver receives. */
export interface SvcContext {
  requestId: string;
  log: Logger;
  /** Present when the request carried a valid access token. */
  principal?: Principal;
  /** A credential was sent but is not valid: every operation but the public ones fails with it. */
  authError?: SvcError;
  /** The raw bearer credential, for subgraphs with credentials other than JWTs (virtual API keys). */
  bearer?: string;
  /** The access token (JWT) `principal` was verified from, to ask other services with the caller's own authority. */
  accessToken?: string;
  siteKey?: string;
  tenantId?: string;
  /** The client's address: the router's signed `x-svc-client-ip`, else the socket peer. */
  clientIp?: string;
}

/** The caller's own headers: credential, tenant, site and request id. */
export const CALLER_HEADERS = ['authorization', 'x-svc-tenant-id', 'x-svc-site-key', 'x-request-id'] as const;

/** Headers the router forwards to every subgraph: the caller's (it sets the signed client address itself). */
export const FORWARDED_HEADERS = CALLER_HEADERS;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || undefined;
}

export interface ContextOptions {
  verifier: TokenVerifier;
  log: Logger;
  /** Bearer credentials this subgraph checks itself (for example `sk-svc-` keys) instead of as JWTs. */
  isOwnCredential?: (bearer: string) => boolean;
}

/** The router's signed client address, else the socket peer (a forged header is ignored). */
function clientIpOf(headers: IncomingHttpHeaders, peer: string | undefined, verifier: TokenVerifier): string | undefined {
  const claimed = header(headers, CLIENT_IP_HEADER);
  return verifier.isRouterClientAddress(claimed, header(headers, CLIENT_IP_SIGNATURE_HEADER)) ? claimed : peer;
}

export async function createContext(headers: IncomingHttpHeaders, options: ContextOptions, peer?: string): Promise<SvcContext> {
  const requestId = requestIdFrom(headers);
  const context: SvcContext = {
    requestId,
    log: options.log,
    siteKey: header(headers, 'x-svc-site-key'),
    tenantId: header(headers, 'x-svc-tenant-id'),
    clientIp: clientIpOf(headers, peer, options.verifier),
  };
  try {
    const token = bearerToken(header(headers, 'authorization'));
    if (token && options.isOwnCredential?.(token)) context.bearer = token;
    else if (token) {
      context.principal = await options.verifier.verify(token);
      context.accessToken = token;
    }
  } catch (error) {
    context.authError = error instanceof SvcError ? error : new SvcError('UNAUTHENTICATED', 'Access token is invalid');
  }
  // One child logger a request, naming the caller when there is one.
  context.log = options.log.child(context.principal ? { requestId, sub: context.principal.subject } : { requestId });
  return context;
}
