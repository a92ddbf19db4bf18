import type { IncomingMessage } from 'node:http';
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import { SvcError } from '../errors.js';
import { readBody } from './read-body.js';
import { sendJson, type Handler } from './server.js';

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
          body = JSON.parse(text);
        } catch {
          return sendJson(res, 400, { errors: [{ message: 'Request body is not valid JSON', extensions: { code: 'BAD_USER_INPUT' } }] });
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
      res.end(result.body.string);
      return;
    }
    for await (const chunk of result.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
