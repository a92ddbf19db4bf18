import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import { CLIENT_CODES, SvcError } from '../errors.js';
import { isJsonObject, parseClientJson } from '../input-guard.js';
import { readBody } from './read-body.js';
import { sendJson, type Handler } from './server.js';

/**
 * Some plugins (graphql-armor's token limit) refuse a document by throwing while it is parsed,
 * which Apollo answers with 500; a request refused before execution for its syntax or a
 * validation rule is the client's mistake and gets 400.
 */
function refusedAsClientMistake(body: string | { data?: unknown; errors?: unknown }): boolean {
  let parsed: { data?: unknown; errors?: { message?: string; extensions?: { code?: unknown } }[] };
  try {
    parsed = typeof body === 'string' ? JSON.parse(body) : (body as typeof parsed);
  } catch {
    return false;
  }
  const errors = parsed.errors ?? [];
  return parsed.data === undefined && errors.length > 0 && errors.every((e) => e.message?.startsWith('Syntax Error') || (typeof e.extensions?.code === 'string' && CLIENT_CODES.has(e.extensions.code)));
}

/**
 * A GraphQL answer in this process: status, headers (lower-case names) and the result as the
 * object its JSON body would parse to, not serialised (a subgraph's answer to the router is
 * parsed again at once; the router serialises what it answers itself).
 */
export interface InProcessAnswer {
  status: number;
  headers: Record<string, string>;
  result: Record<string, unknown>;
}

/**
 * A GraphQL endpoint called in the same process, without a socket: what the router calls for a
 * subgraph that runs beside it (`svc all`). The same Apollo Server, plugins, validation, context
 * and masking as over HTTP; the request as the router would send it (method, headers, JSON body).
 */
export type InProcessGraphql = (request: { method: string; headers: Readonly<Record<string, string>>; body: string }) => Promise<InProcessAnswer>;

const JSON_TYPE = 'application/json; charset=utf-8';

/** A refusal before Apollo is reached (a body that is no JSON or nests too deep): 400, in GraphQL's error shape. */
function refusal(error: SvcError): { status: number; headers: HeaderMap; body: string } {
  return { status: 400, headers: new HeaderMap([['content-type', JSON_TYPE]]), body: JSON.stringify(refusalResult(error)) };
}

function refusalResult(error: SvcError): Record<string, unknown> {
  return { errors: [{ message: error.message, extensions: error.extensions }] };
}

/** An in-process answer for a failure of the server itself, shaped as Apollo answers one over HTTP. */
function serverFailure(message: string): InProcessAnswer {
  return { status: 500, headers: { 'content-type': JSON_TYPE }, result: { errors: [{ message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } };
}

/** Runs one request whose body was read through Apollo; a refusal before execution for the client's mistake is a 400. */
async function answerOf<C extends BaseContext>(
  server: ApolloServer<C>,
  context: () => Promise<C>,
  request: { method: string; headers: HeaderMap; search: string; text: string | undefined },
): Promise<{ status: number; headers: HeaderMap; body: string | AsyncIterable<string> }> {
  let body: unknown;
  if (request.method === 'POST') {
    const isJson = (request.headers.get('content-type') ?? '').toLowerCase().includes('json');
    if (isJson && request.text) {
      try {
        body = parseClientJson(request.text);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        return refusal(error);
      }
    } else body = request.text;
  }
  const result = await server.executeHTTPGraphQLRequest({ httpGraphQLRequest: { method: request.method, headers: request.headers, search: request.search, body }, context });
  const status = result.status ?? 200;
  if (result.body.kind !== 'complete') return { status, headers: result.headers, body: result.body.asyncIterator };
  return { status: status === 500 && refusedAsClientMistake(result.body.string) ? 400 : status, headers: result.headers, body: result.body.string };
}

function headerMapOf(headers: Readonly<Record<string, string | string[] | undefined>>): HeaderMap {
  const map = new HeaderMap();
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) map.set(key.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
  }
  return map;
}

/** Adapts Apollo Server's transport-agnostic core to node:http. */
export function apolloHandler<C extends BaseContext>(
  server: ApolloServer<C>,
  context: (req: IncomingMessage) => Promise<C>,
  maxBodyBytes: number,
): Handler {
  return async (req, res) => {
    let text: string | undefined;
    if (req.method === 'POST') {
      try {
        text = (await readBody(req, maxBodyBytes)).toString('utf8');
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        return sendJson(res, error.status, { errors: [{ message: error.message, extensions: error.extensions }] });
      }
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const answer = await answerOf(server, () => context(req), { method: req.method ?? 'GET', headers: headerMapOf(req.headers), search: url.search, text });
    res.statusCode = answer.status;
    for (const [key, value] of answer.headers) res.setHeader(key, value);
    if (typeof answer.body === 'string') {
      res.end(answer.body);
      return;
    }
    for await (const chunk of answer.body) res.write(chunk);
    res.end();
  };
}

/**
 * The same endpoint for callers in this process (see {@link InProcessGraphql}); `context` gets the
 * request's headers. A POST of a JSON GraphQL request (what the router sends) is executed with
 * `executeOperation`, which runs the same plugins, validation and error formatting as the HTTP
 * path and hands back the result unserialised; anything else takes the HTTP path.
 */
export function inProcessGraphql<C extends BaseContext>(server: ApolloServer<C>, context: (headers: IncomingHttpHeaders) => Promise<C>): InProcessGraphql {
  const viaHttp = async ({ method, headers, body }: { method: string; headers: Readonly<Record<string, string>>; body: string }): Promise<InProcessAnswer> => {
    const map = headerMapOf(headers);
    const answer = await answerOf(server, () => context(Object.fromEntries(map)), { method, headers: map, search: '', text: body });
    let text = '';
    if (typeof answer.body === 'string') text = answer.body;
    else for await (const chunk of answer.body) text += chunk;
    return { status: answer.status, headers: Object.fromEntries(answer.headers), result: JSON.parse(text) as Record<string, unknown> };
  };
  return async (request) => {
    const map = headerMapOf(request.headers);
    let parsed: unknown;
    try {
      parsed = request.method === 'POST' && (map.get('content-type') ?? '').includes('json') ? parseClientJson(request.body) : undefined;
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      return { status: 400, headers: { 'content-type': JSON_TYPE }, result: refusalResult(error) };
    }
    if (!isJsonObject(parsed) || typeof parsed.query !== 'string') return viaHttp(request);
    let contextValue: C;
    try {
      contextValue = await context(Object.fromEntries(map));
    } catch (error) {
      return serverFailure(`Context creation failed: ${(error as Error).message}`);
    }
    const { query, variables, operationName, extensions } = parsed as { query: string; variables?: Record<string, unknown>; operationName?: string; extensions?: Record<string, unknown> };
    const response = await server.executeOperation(
      { query, variables: variables ?? undefined, operationName: operationName ?? undefined, extensions: extensions ?? undefined, http: { method: 'POST', headers: map, search: '', body: parsed } },
      { contextValue },
    );
    // The router asks for one answer, never incremental delivery; running the operation again over the HTTP path would run a mutation twice.
    if (response.body.kind !== 'single') return serverFailure('A subgraph in this process answered incrementally');
    const result = response.body.singleResult as Record<string, unknown>;
    const headers: Record<string, string> = { 'content-type': JSON_TYPE };
    for (const [key, value] of response.http.headers) headers[key] = value;
    const status = response.http.status ?? 200;
    return { status: status === 500 && refusedAsClientMistake(result) ? 400 : status, headers, result };
  };
}
