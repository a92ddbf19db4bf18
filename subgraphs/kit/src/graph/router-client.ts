import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { SvcError } from '../errors.js';
import { isJsonObject } from '../input-guard.js';
import type { InProcessGraphql } from '../http/apollo-handler.js';
import { svcErrorOf, type GraphQLResult } from './graphql-result.js';

export interface RouterClientOptions {
  /** The router's GraphQL endpoint; a function when the address is known only later (read on every call). */
  url: string | (() => string);
  /**
   * Operation texts by name, from `loadOperations()` (schema/operations/*.graphql); or the
   * promise of them, so a process can start serving while they are read (a failed read fails
   * the calls).
   */
  operations: ReadonlyMap<string, string> | Promise<ReadonlyMap<string, string>>;
  /** How long one call may take, the whole answer included; default 30 000 ms. */
  timeoutMs?: number;
  /**
   * The router of this process (`svc all`), called without a socket: its answers come as
   * objects, not text. Without it every call goes to `url` over HTTP.
   */
  inProcess?: InProcessGraphql;
}

export interface CallOptions {
  /**
   * Headers of the call, sent as given (lower-case names; undefined values left out): the
   * caller's credential, tenant, site key and request id (kit's CALLER_HEADERS). Without an
   * `x-request-id` the call gets a fresh one, so the router's logs of it can be found.
   */
  headers?: Readonly<Record<string, string | undefined>>;
  /** This call's limit instead of the client's `timeoutMs`. */
  timeoutMs?: number;
}

/**
 * The router's answer as it came: HTTP status and body text, not yet parsed; or, from a router
 * in this process, the result as an object (never serialised).
 */
export type RouterAnswer = { status: number; body: string } | { status: number; result: Record<string, unknown> };

export interface RouterClient {
  /**
   * Runs a named operation and returns its `data`. Fails with an SvcError: the code of the
   * first GraphQL error (see `svcErrorOf`), or one of the client's own (ROUTER_FAILURE):
   * UNAVAILABLE when the router cannot be reached or does not answer in time, UPSTREAM_ERROR
   * when it answers with something other than a GraphQL result with data.
   */
  execute<T = Record<string, unknown>>(operationName: string, variables?: Record<string, unknown>, options?: CallOptions): Promise<T>;
  /** Runs a named operation and returns the response as it came (data and errors), for callers that map errors themselves. Transport failures throw as for `execute`. */
  raw(operationName: string, variables?: Record<string, unknown>, options?: CallOptions): Promise<GraphQLResult>;
  /** Runs a named operation and returns the answer unparsed, for callers that pass it on (parse it with `resultOfAnswer`). Transport failures throw as for `execute`. */
  text(operationName: string, variables?: Record<string, unknown>, options?: CallOptions): Promise<RouterAnswer>;
  /** Closes the kept-alive connections. */
  close(): Promise<void>;
}

/** Slugs of the client's own failures, telling them apart from errors the graph answered with. */
export const ROUTER_FAILURE = {
  /** UNAVAILABLE: no connection, or it broke; the network error is the `originalError`. */
  unreachable: 'router-unreachable',
  /** UNAVAILABLE: no complete answer within the timeout. */
  timeout: 'router-timeout',
  /** UPSTREAM_ERROR: an answer that is not a GraphQL result, or one without data; `details` has `httpStatus` (and `bodyStart`). */
  invalidAnswer: 'router-invalid-answer',
} as const;

const DEFAULT_TIMEOUT_MS = 30_000;

/** The network error as an Error of this realm (SvcError keeps only those as `originalError`). */
function asError(error: unknown): Error {
  if (error instanceof Error) return error;
  const message = (error as { message?: unknown } | null)?.message;
  return new Error(typeof message === 'string' ? message : String(error), { cause: error });
}

/** The GraphQL result in a router's answer; UPSTREAM_ERROR (ROUTER_FAILURE.invalidAnswer) when the body is not one. */
export function resultOfAnswer(answer: RouterAnswer): GraphQLResult {
  if ('result' in answer) return answer.result as GraphQLResult;
  const text = answer.body;
  let result: unknown;
  try {
    result = JSON.parse(text);
  } catch {
    result = undefined;
  }
  if (!isJsonObject(result)) {
    throw new SvcError('UPSTREAM_ERROR', `The GraphQL router answered HTTP ${answer.status} with a body that is not a GraphQL result`, {
      slug: ROUTER_FAILURE.invalidAnswer,
      details: { httpStatus: answer.status, bodyStart: text.slice(0, 200) } });
  }
  return result as GraphQLResult;
}

/** No complete answer to `operationName` within `timeoutMs` (ROUTER_FAILURE.timeout). */
function timedOut(operationName: string, timeoutMs: number, cause?: unknown): SvcError {
  return new SvcError('UNAVAILABLE', `The GraphQL router did not answer ${operationName} within ${timeoutMs / 1000} s`, { slug: ROUTER_FAILURE.timeout, retryAfter: 5, cause: cause === undefined ? undefined : asError(cause) });
}

/** The call itself failed (ROUTER_FAILURE.unreachable), with that failure as the cause. */
function unreachable(cause: unknown): SvcError {
  return new SvcError('UNAVAILABLE', 'The GraphQL router is unavailable; retry shortly', { slug: ROUTER_FAILURE.unreachable, retryAfter: 5, cause: asError(cause) });
}

/**
 * A call to the router of this process, with the same limit as over HTTP: an answer not there
 * in time is UNAVAILABLE (ROUTER_FAILURE.timeout), and so is a failure of the call itself.
 */
async function inProcess(graphql: InProcessGraphql, operationName: string, timeoutMs: number, request: Parameters<InProcessGraphql>[0]): Promise<RouterAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timedOut(operationName, timeoutMs)), timeoutMs);
  });
  try {
    const answer = await Promise.race([graphql(request), late]);
    return { status: answer.status, result: answer.result };
  } catch (error) {
    if (error instanceof SvcError) throw error;
    throw unreachable(error);
  } finally {
    clearTimeout(timer);
  }
}

/** One client of the router: every named operation over one pool of keep-alive connections (or the router of this process). */
export function createRouterClient(options: RouterClientOptions): RouterClient {
  const agent = new Agent();
  const operations = Promise.resolve(options.operations);
  // Reported by the calls that need them, not as an unhandled rejection at start.
  operations.catch(() => undefined);
  const urlOf = typeof options.url === 'function' ? options.url : () => options.url as string;

  async function post(operationName: string, variables: Record<string, unknown>, call: CallOptions): Promise<RouterAnswer> {
    const query = (await operations).get(operationName);
    // A programming error, not a failure of the graph: no such file was loaded.
    if (query === undefined) throw new Error(`Unknown operation ${operationName}: no schema/operations file defines it`);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    for (const [name, value] of Object.entries(call.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
    headers['x-request-id'] ??= randomUUID();
    const timeoutMs = call.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const body = JSON.stringify({ query, operationName, variables });
    if (options.inProcess) return inProcess(options.inProcess, operationName, timeoutMs, { method: 'POST', headers, body });
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await request(urlOf(), { method: 'POST', headers, body, dispatcher: agent, signal });
      return { status: response.statusCode, body: await response.body.text() };
    } catch (error) {
      if (signal.aborted) throw timedOut(operationName, timeoutMs, error);
      throw unreachable(error);
    }
  }

  return {
    async execute<T>(operationName: string, variables: Record<string, unknown> = {}, call: CallOptions = {}): Promise<T> {
      const answer = await post(operationName, variables, call);
      const result = resultOfAnswer(answer);
      if (result.errors?.length) throw svcErrorOf(result.errors[0]!);
      if (!isJsonObject(result.data)) throw new SvcError('UPSTREAM_ERROR', `The GraphQL router answered HTTP ${answer.status} without data for ${operationName}`, { slug: ROUTER_FAILURE.invalidAnswer, details: { httpStatus: answer.status } });
      return result.data as T;
    },
    async raw(operationName, variables = {}, call = {}) {
      return resultOfAnswer(await post(operationName, variables, call));
    },
    text: (operationName, variables = {}, call = {}) => post(operationName, variables, call),
    close: () => agent.close(),
  };
}
