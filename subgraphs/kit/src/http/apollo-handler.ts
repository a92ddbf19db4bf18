import type { IncomingMessage } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import { CLIENT_CODES, SvcError } from '../errors.js';
import { parseClientJson } from '../input-guard.js';
import { readBody } from './read-body.js';
import { sendJson, type Handler } from './server.js';

/**
 * Some plugins (graphql-armor's token limit) refuse a document by throwing while it is parsed,
 * which Apollo answers with 500; a request refused before execution for its syntax or a
 * validation rule is the client's mistake and gets 400.
 */
function refusedAsClientMistake(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { data?: unknown; errors?: { message?: string; extensions?: { code?: unknown } }[] };
    const errors = parsed.errors ?? [];
    return parsed.data === undefined && errors.length > 0 && errors.every((e) => e.message?.startsWith('Syntax Error') || (typeof e.extensions?.code === 'string' && CLIENT_CODES.has(e.extensions.code)));
  } catch {
    return false;
  }
}

/** Adapts Apollo Server's transport-agnostic core to node:http. */
export function apolloHandler<C extends BaseContext>(
  server: ApolloServer<C>,
  context: (req: IncomingMessage) => Promise<C>,
  maxBodyBytes: number,
): Handler {
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readBody(req, maxBodyBytes);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        return sendJson(res, error.status, { errors: [{ message: error.message, extensions: error.extensions }] });
      }
      const text = raw.toString('utf8');
      const isJson = (headers.get('content-type') ?? '').toLowerCase().includes('json');
      if (isJson && text) {
        try {
          body = parseClientJson(text);
        } catch (error) {
          if (!(error instanceof SvcError)) throw error;
          return sendJson(res, 400, { errors: [{ message: error.message, extensions: error.extensions }] });
        }
      } else body = text;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const result = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method ?? 'GET', headers, search: url.search, body },
      context: () => context(req),
    });
    res.statusCode = result.status ?? 200;
    for (const [key, value] of result.headers) res.setHeader(key, value);
    if (result.body.kind === 'complete') {
      if (res.statusCode === 500 && refusedAsClientMistake(result.body.string)) res.statusCode = 400;
      res.end(result.body.string);
      return;
    }
    for await (const chunk of result.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
