import { beforeAll, describe, expect, it } from '@jest/globals';
import { SvcError, createLogger } from '@svc/kit';
import { fileURLToPath } from 'node:url';
import { createBridge, type Bridge, type GraphQLResult, type RestRequest, type RestResponse } from './bridge.js';
import { loadOperations } from '@svc/kit';
import { ROUTES } from './routes/index.js';
import { answerOf } from './testing.js';

/** Runs from rest-bridge/dist/src/. */
const OPERATIONS_DIR = fileURLToPath(new URL('../../../schema/operations/', import.meta.url));
const BASE = 'https://api.example.com';
const log = createLogger({ level: 'silent' });

interface Call {
  query: string;
  operationName: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

let operations: Map<string, string>;

beforeAll(async () => {
  operations = await loadOperations(OPERATIONS_DIR);
});

/** A bridge whose router is a fake: it records calls and answers with `reply`. */
function setup(
  reply: GraphQLResult | ((call: Call) => GraphQLResult | Promise<GraphQLResult>) = { data: {} },
  { publicBaseUrl = BASE as string | null } = {},
) {
  const calls: Call[] = [];
  const bridge: Bridge = createBridge({
    routes: ROUTES,
    operations,
    log,
    ...(publicBaseUrl === null ? {} : { publicBaseUrl }),
    execute: async (request, headers) => {
      const call = { ...request, headers };
      calls.push(call);
      return answerOf(typeof reply === 'function' ? await reply(call) : reply);
    },
  });
  return { bridge, calls };
}

function request(method: string, path: string, options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {}): RestRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
  let body: Buffer | undefined;
  if (options.rawBody !== undefined) body = Buffer.from(options.rawBody, 'utf8');
  else if (options.body !== undefined) {
    body = Buffer.from(JSON.stringify(options.body), 'utf8');
    headers['content-type'] ??= 'application/json';
  }
  const [pathname, search] = path.split('?');
  return { method, path: pathname!, query: new URLSearchParams(search ?? ''), headers, body };
}

function json(response: RestResponse): any {
  expect(response.body).toBeDefined();
  return JSON.parse(response.body!);
}

/** Asserts an RFC 9457 problem and returns its body. */
function problem(response: RestResponse, status: number, slug: string, instance: string, base = BASE): any {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  const body = json(response);
  expect(body.type).toBe(`${base}/errors/${slug}`);
  expect(body.status).toBe(status);
  expect(body.instance).toBe(instance);
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000);
  return body;
}

const SITE = { 'X-Svc-Site-Key': 'demo' };
const CONTENT = {
  contentId: 'c-1',
  slug: 'welcome',
  title: 'Welcome',
  status: 'PUBLISHED',
  publishedAt: '2024-05-01T10:00:00.000Z',
  version: 3,
  fields: { headline: 'Hi', description: 'Desc', bannerUrl: 'https://cdn/b.png', ctaText: null, ctaLink: null },
  seo: { metaTitle: 'Welcome', metaDescription: 'Desc', ogImage: 'https://cdn/b.png' },
};
const DELIVERED: GraphQLResult = {
  data: {
    deliveredContent: {
      etag: '"abc123"',
      maxAgeSeconds: 300,
      surrogateKeys: ['svc-content-demo-welcome', 'svc-site-demo'],
      content: CONTENT,
    },
  },
};

describe('operations and routes', () => {
  it('loads every operation the route table names', () => {
    for (const route of ROUTES) expect(operations.get(route.operation)).toMatch(new RegExp(`^(query|mutation) ${route.operation}\\b`));
  });

  it('refuses a route naming an unknown operation', () => {
    expect(() =>
      createBridge({ routes: ROUTES, operations: new Map([...operations].filter(([k]) => k !== 'SubmitForm')), log, execute: async () => answerOf({}) }),
    ).toThrow('Route POST /api/v1/forms/{formKey}/submit names unknown operation SubmitForm');
  });
});

describe('GET /api/v1/contents/{contentSlug}', () => {
  it('sends DeliverContent with variables from the path and the header, and wraps the payload', async () => {
    const { bridge, calls } = setup(DELIVERED);
    const response = await bridge.handle(
      request('GET', '/api/v1/contents/welcome', {
        headers: { ...SITE, Authorization: 'Bearer tok', 'X-Request-Id': 'req-1', Cookie: 'session=secret', Accept: 'application/json' },
      }),
    );
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.operationName).toBe('DeliverContent');
    expect(call.query).toBe(operations.get('DeliverContent'));
    expect(call.variables).toEqual({ slug: 'welcome', siteKey: 'demo' });
    expect(call.headers).toEqual({
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: 'Bearer tok',
      'x-svc-site-key': 'demo',
      'x-request-id': 'req-1',
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json(response)).toEqual({ success: true, data: CONTENT });
  });

  it('sets cache headers from the result', async () => {
    const { bridge } = setup(DELIVERED);
    const response = await bridge.handle(request('GET', '/api/v1/contents/welcome', { headers: SITE }));
    expect(response.headers).toMatchObject({
      etag: '"abc123"',
      'cache-control': 'public, max-age=0, s-maxage=300, must-revalidate',
      xkey: 'svc-content-demo-welcome svc-site-demo',
      'surrogate-key': 'svc-content-demo-welcome svc-site-demo',
      'cache-tag': 'svc-content-demo-welcome,svc-site-demo',
      vary: 'Accept, Accept-Language, X-Svc-Site-Key',
    });
  });

  it('decodes path parameters', async () => {
    const { bridge, calls } = setup(DELIVERED);
    await bridge.handle(request('GET', '/api/v1/contents/caf%C3%A9', { headers: SITE }));
    expect(calls[0]!.variables.slug).toBe('café');
  });

  it('answers 400 for a path parameter with broken URL encoding, without calling the router', async () => {
    const { bridge, calls } = setup(DELIVERED);
    const response = await bridge.handle(request('GET', '/api/v1/contents/%E0%A4%A', { headers: SITE }));
    problem(response, 400, 'bad-user-input', '/api/v1/contents/%E0%A4%A');
    expect(calls).toHaveLength(0);
  });

  it('answers 304 with no body but cache headers when If-None-Match matches the ETag', async () => {
    const { bridge } = setup(DELIVERED);
    for (const inm of ['"abc123"', '"old", "abc123"', '*']) {
      const response = await bridge.handle(request('GET', '/api/v1/contents/welcome', { headers: { ...SITE, 'If-None-Match': inm } }));
      expect(response.status).toBe(304);
      expect(response.body).toBeUndefined();
      expect(response.headers['content-type']).toBeUndefined();
      expect(response.headers).toMatchObject({
        etag: '"abc123"',
        'cache-control': 'public, max-age=0, s-maxage=300, must-revalidate',
        xkey: 'svc-content-demo-welcome svc-site-demo',
        'surrogate-key': 'svc-content-demo-welcome svc-site-demo',
        'cache-tag': 'svc-content-demo-welcome,svc-site-demo',
      });
    }
  });

  it('answers 200 when If-None-Match does not match', async () => {
    const { bridge } = setup(DELIVERED);
    const response = await bridge.handle(request('GET', '/api/v1/contents/welcome', { headers: { ...SITE, 'If-None-Match': '"stale"' } }));
    expect(response.status).toBe(200);
    expect(json(response).data).toEqual(CONTENT);
  });

  it('uses weak comparison for If-None-Match (RFC 9110 section 13.1.2): W/"abc123" matches "abc123"', async () => {
    const { bridge } = setup(DELIVERED);
    const response = await bridge.handle(request('GET', '/api/v1/contents/welcome', { headers: { ...SITE, 'If-None-Match': 'W/"abc123"' } }));
    expect(response.status).toBe(304);
  });

  it('answers 400 naming the header when X-Svc-Site-Key is missing or blank', async () => {
    const { bridge, calls } = setup(DELIVERED);
    for (const headers of [{}, { 'X-Svc-Site-Key': '  ' }] as Record<string, string>[]) {
      const response = await bridge.handle(request('GET', '/api/v1/contents/x', { headers }));
      const body = problem(response, 400, 'missing-header', '/api/v1/contents/x');
      expect(body.title).toBe('Bad Request');
      expect(body.detail).toBe('The X-Svc-Site-Key header is required');
    }
    expect(calls).toHaveLength(0);
  });

  it('answers 406 for Accept: text/html', async () => {
    const { bridge, calls } = setup(DELIVERED);
    const response = await bridge.handle(request('GET', '/api/v1/contents/welcome', { headers: { ...SITE, Accept: 'text/html' } }));
    const body = problem(response, 406, 'not-acceptable', '/api/v1/contents/welcome');
    expect(body.title).toBe('Not Acceptable');
    expect(body.detail).toContain('text/html');
    expect(calls).toHaveLength(0);
  });

  it('serves HEAD like GET', async () => {
    const { bridge, calls } = setup(DELIVERED);
    const response = await bridge.handle(request('HEAD', '/api/v1/contents/welcome', { headers: SITE }));
    expect(response.status).toBe(200);
    expect(calls[0]!.operationName).toBe('DeliverContent');
  });
});

describe('POST /api/v1/forms/{formKey}/submit', () => {
  const path = '/api/v1/forms/contact/submit';
  const data = { applicantName: 'Ada', email: 'ada@example.com' };

  it('sends the whole body as $data and answers 201 in the cms envelope', async () => {
    const { bridge, calls } = setup({ data: { submitForm: { submissionId: 's-1', receivedAt: '2024-05-01T10:00:00.000Z' } } });
    const response = await bridge.handle(request('POST', path, { headers: { ...SITE, 'X-Forwarded-For': '203.0.113.7' }, body: data }));
    expect(calls[0]!.operationName).toBe('SubmitForm');
    expect(calls[0]!.variables).toEqual({ formKey: 'contact', siteKey: 'demo', data });
    expect(calls[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-svc-site-key': 'demo', 'x-forwarded-for': '203.0.113.7' });
    expect(response.status).toBe(201);
    expect(json(response)).toEqual({ success: true, data: { submissionId: 's-1', receivedAt: '2024-05-01T10:00:00.000Z' } });
  });

  it('accepts application/json with a charset and +json types', async () => {
    const { bridge, calls } = setup({ data: { submitForm: { submissionId: 's' } } });
    for (const type of ['application/json; charset=utf-8', 'application/merge-patch+json']) {
      const response = await bridge.handle(request('POST', path, { headers: { ...SITE, 'Content-Type': type }, body: data }));
      expect(response.status).toBe(201);
    }
    expect(calls).toHaveLength(2);
  });

  it('renders a 422 validation error as a problem with errors[]', async () => {
    const errors = [
      { pointer: '/email', detail: 'email must be a valid e-mail address; got "nope"' },
      { pointer: '/name', detail: 'name is required' },
    ];
    const { bridge } = setup({
      data: null,
      errors: [{ message: 'Form contact has 2 invalid field(s)', extensions: { code: 'BAD_USER_INPUT', status: 422, slug: 'validation-failed', title: 'Validation Failed', errors } }],
    });
    const response = await bridge.handle(request('POST', path, { headers: SITE, body: { email: 'nope' } }));
    const body = problem(response, 422, 'validation-failed', path);
    expect(body).toMatchObject({ title: 'Validation Failed', detail: 'Form contact has 2 invalid field(s)', errors });
    expect(Object.keys(body).sort()).toEqual(['detail', 'errors', 'instance', 'status', 'timestamp', 'title', 'type']);
  });

  it('renders RATE_LIMITED with Retry-After', async () => {
    const { bridge } = setup({
      errors: [{ message: 'Too many submissions; retry in 42 s', extensions: { code: 'RATE_LIMITED', status: 429, retryAfter: 41.2 } }],
    });
    const response = await bridge.handle(request('POST', path, { headers: SITE, body: data }));
    const body = problem(response, 429, 'rate-limited', path);
    expect(response.headers['retry-after']).toBe('42');
    expect(body).toMatchObject({ title: 'Too Many Requests', detail: 'Too many submissions; retry in 42 s', retryAfter: 41.2 });
  });

  it('maps a graphql-js variable coercion error (BAD_USER_INPUT without status) to 400', async () => {
    const message = 'Variable "$data" got invalid value "x"; Expected type "JSONObject". JSONObject cannot represent non-object value: x';
    const { bridge } = setup({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] });
    const response = await bridge.handle(request('POST', path, { headers: SITE, body: data }));
    const body = problem(response, 400, 'bad-user-input', path);
    expect(body.detail).toBe(message);
    expect(body.errors).toEqual([{ pointer: '/data', detail: message }]);
  });

  it('points at the nested member of a coercion error', async () => {
    const message = 'Variable "$input" got invalid value 5 at "input.title"; String cannot represent a non string value: 5';
    const { bridge } = setup({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT' } }] });
    const body = json(await bridge.handle(request('POST', path, { headers: SITE, body: data })));
    expect(body.errors).toEqual([{ pointer: '/title', detail: message }]);
  });

  it('answers 415 for Content-Type: text/plain, without calling the router', async () => {
    const { bridge, calls } = setup();
    const response = await bridge.handle(request('POST', path, { headers: { ...SITE, 'Content-Type': 'text/plain' }, rawBody: '{"a":"b"}' }));
    const body = problem(response, 415, 'unsupported-media-type', path);
    expect(body.title).toBe('Unsupported Media Type');
    expect(body.detail).toBe('Content-Type must be application/json; got "text/plain"');
    expect(calls).toHaveLength(0);
  });

  it('answers 400 for malformed JSON, naming the problem', async () => {
    const { bridge, calls } = setup();
    const response = await bridge.handle(
      request('POST', path, { headers: { ...SITE, 'Content-Type': 'application/json' }, rawBody: '{"email": "ada@example.com",' }),
    );
    const body = problem(response, 400, 'malformed-json', path);
    expect(body.detail).toMatch(/^Request body is not valid JSON: \S/);
    expect(calls).toHaveLength(0);
  });

  it.each([
    ['an array', '[{"email":"a@b.co"}]'],
    ['a string', '"hello"'],
    ['null', 'null'],
  ])('answers 400 for a JSON body that is %s', async (_label, raw) => {
    const { bridge, calls } = setup();
    const response = await bridge.handle(request('POST', path, { headers: { ...SITE, 'Content-Type': 'application/json' }, rawBody: raw }));
    expect(problem(response, 400, 'malformed-request', path).detail).toBe('Request body must be a JSON object');
    expect(calls).toHaveLength(0);
  });

  it('answers 400 for a missing body', async () => {
    const { bridge } = setup();
    const response = await bridge.handle(request('POST', path, { headers: { ...SITE, 'Content-Type': 'application/json' } }));
    expect(problem(response, 400, 'malformed-request', path).detail).toBe('Request body is required (a JSON object)');
  });

  it('answers 503 when the router call throws, without leaking the cause', async () => {
    const { bridge, calls } = setup(() => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:4000');
    });
    const response = await bridge.handle(request('POST', path, { headers: SITE, body: data }));
    const body = problem(response, 503, 'unavailable', path);
    expect(body.title).toBe('Service Unavailable');
    expect(body.detail).toBe('The GraphQL router is unavailable; retry shortly');
    expect(body.detail).not.toContain('ECONNREFUSED');
    expect(calls).toHaveLength(1);
  });

  it('sends Retry-After: 5 with the 503 when the router call throws (the bridge raises it with retryAfter: 5)', async () => {
    const { bridge } = setup(() => {
      throw new Error('fetch failed');
    });
    const response = await bridge.handle(request('POST', path, { headers: SITE, body: data }));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(json(response).retryAfter).toBe(5);
  });
});

describe('GraphQL errors from the router', () => {
  const path = '/api/v1/contents/welcome';

  it.each([
    ['NOT_FOUND', 404, { slug: 'content-not-found' }, 'content-not-found', 'Not Found'],
    ['FORBIDDEN', 403, {}, 'forbidden', 'Forbidden'],
    ['CONFLICT', 409, { title: 'Version Conflict' }, 'conflict', 'Version Conflict'],
    ['UPSTREAM_ERROR', 502, {}, 'upstream-error', 'Bad Gateway'],
  ])('%s -> %i', async (code, status, extra, slug, title) => {
    const { bridge } = setup({ errors: [{ message: `it is ${code}`, extensions: { code, status, ...extra } }] });
    const body = problem(await bridge.handle(request('GET', path, { headers: SITE })), status, slug, path);
    expect(body.title).toBe(title);
    expect(body.detail).toBe(`it is ${code}`);
  });

  it('derives the status from the code when extensions carry none', async () => {
    const { bridge } = setup({ errors: [{ message: 'nope', extensions: { code: 'NOT_FOUND' } }] });
    expect((await bridge.handle(request('GET', path, { headers: SITE }))).status).toBe(404);
  });

  it('adds WWW-Authenticate to 401 answers', async () => {
    const { bridge } = setup({ errors: [{ message: 'Access token has expired', extensions: { code: 'UNAUTHENTICATED', status: 401, slug: 'token-expired' } }] });
    const response = await bridge.handle(request('GET', path, { headers: SITE }));
    problem(response, 401, 'token-expired', path);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('masks internal errors', async () => {
    const { bridge } = setup({ errors: [{ message: 'relation "content" does not exist', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    const response = await bridge.handle(request('GET', path, { headers: SITE }));
    const body = problem(response, 500, 'internal-server-error', path);
    expect(body.detail).toBe('Internal server error');
    expect(response.body).not.toContain('relation');
  });

  it('turns a route operation that no longer validates into a 500', async () => {
    const { bridge } = setup({ errors: [{ message: 'Cannot query field "etag"', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    const body = problem(await bridge.handle(request('GET', path, { headers: SITE })), 500, 'internal-server-error', path);
    expect(body.detail).toBe('Internal server error');
  });

  it('turns an unreachable subgraph into a 503', async () => {
    const { bridge } = setup({ errors: [{ message: 'connect ECONNREFUSED 127.0.0.1:4004', extensions: { code: 'DOWNSTREAM_SERVICE_ERROR' } }] });
    problem(await bridge.handle(request('GET', path, { headers: SITE })), 503, 'unavailable', path);
  });

  it('copies public details into the problem', async () => {
    const layers = [{ layer: 'varnish', ok: false }];
    const { bridge } = setup({ errors: [{ message: 'purge incomplete', extensions: { code: 'UPSTREAM_ERROR', status: 502, slug: 'purge-incomplete', details: { layers } } }] });
    const response = await bridge.handle(
      request('POST', '/api/v1/deploy/purge-cache', { headers: { Authorization: 'Bearer t' }, body: { siteKey: 'demo', contentSlug: 'welcome' } }),
    );
    const body = problem(response, 502, 'purge-incomplete', '/api/v1/deploy/purge-cache');
    expect(body.layers).toEqual(layers);
  });

  it('defaults the problem type base to the Host header', async () => {
    const { bridge } = setup({ errors: [{ message: 'x', extensions: { code: 'NOT_FOUND', status: 404 } }] }, { publicBaseUrl: null });
    const response = await bridge.handle(request('GET', path, { headers: { ...SITE, Host: 'bridge.local:8084' } }));
    problem(response, 404, 'not-found', path, 'http://bridge.local:8084');
  });

  it('strips a trailing slash of publicBaseUrl', async () => {
    const { bridge } = setup({ errors: [{ message: 'x', extensions: { code: 'NOT_FOUND', status: 404 } }] }, { publicBaseUrl: 'https://api.example.com/' });
    problem(await bridge.handle(request('GET', path, { headers: SITE })), 404, 'not-found', path);
  });
});

describe('partial answers (partial.ts): data with errors only inside the route\'s result', () => {
  const gone = { message: 'CrawlJob "j1" does not exist (any more)', path: ['actionProposals', 1, 'target'], extensions: { code: 'ENTITY_NOT_FOUND', status: 404 } };
  const down = { message: 'The crawl subgraph did not answer within 30 s; its part of the answer is missing', path: ['actionProposals', 2, 'target'], extensions: { code: 'SUBGRAPH_UNAVAILABLE', serviceName: 'crawl' } };
  const actions = [{ actionId: 'a0', target: { title: 'Pricing' } }, { actionId: 'a1', target: null }, { actionId: 'a2', target: null }];

  it('answers an analysis route its success status in its envelope, the parts null and listed by pointer, never cached', async () => {
    const { bridge } = setup({ data: { actionProposals: actions }, errors: [gone, down] });
    const response = await bridge.handle(request('GET', '/api/v1/insight/actions', { headers: { Authorization: 'Bearer t' } }));
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'x-svc-partial': '2' });
    expect(json(response)).toEqual({
      code: 200,
      message: 'Partial answer: 2 parts could not be read (see errors)',
      data: actions,
      errors: [
        { pointer: '/data/1/target', code: 'ENTITY_NOT_FOUND', detail: gone.message },
        { pointer: '/data/2/target', code: 'UNAVAILABLE', detail: down.message },
      ],
    });
  });

  it('answers the crawling, content and gateway shapes with errors beside their data, pointers into the body as sent', async () => {
    const job = { jobId: 'j1', jobName: 'Prices', webhook: null };
    const crawl = await setup({ data: { crawlJob: job }, errors: [{ message: 'nope', path: ['crawlJob', 'webhook'], extensions: { code: 'FORBIDDEN', status: 403 } }] }).bridge.handle(request('GET', '/api/v1/crawl/jobs/j1', { headers: { Authorization: 'Bearer t' } }));
    expect([crawl.status, json(crawl)]).toEqual([200, { code: 'SUCCESS', data: job, errors: [{ pointer: '/data/webhook', code: 'FORBIDDEN', detail: 'nope' }] }]);
    // Content delivery: the payload is the result's `content`; a partial one is not kept, has no ETag and no surrogate keys.
    const delivered = { content: { slug: 'welcome', locale: 'en', seo: null }, etag: '"e1"', surrogateKeys: ['svc-site-demo'], maxAgeSeconds: 300 };
    const cms = await setup({ data: { deliveredContent: delivered }, errors: [{ message: 'x/y gone', path: ['deliveredContent', 'content', 'seo'], extensions: { code: 'ENTITY_NOT_FOUND' } }] }).bridge.handle(request('GET', '/api/v1/contents/welcome', { headers: SITE }));
    expect([cms.status, json(cms)]).toEqual([200, { success: true, data: delivered.content, errors: [{ pointer: '/data/seo', code: 'ENTITY_NOT_FOUND', detail: 'x/y gone' }] }]);
    expect(cms.headers).toMatchObject({ 'cache-control': 'no-store', 'content-language': 'en', 'x-svc-partial': '1' });
    expect(cms.headers.etag).toBeUndefined();
    expect(cms.headers.xkey).toBeUndefined();
    // The gateway's OpenAI-shaped object: its wrapper member, escaped as RFC 6901 says.
    const budgets = [{ agentCode: 'a/b~c', usage: null }];
    const llm = await setup({ data: { budgets }, errors: [{ message: 'later', path: ['budgets', 0, 'usage'], extensions: { code: 'SUBGRAPH_UNAVAILABLE' } }] }).bridge.handle(request('GET', '/admin/v1/budgets', { headers: { Authorization: 'Bearer k' } }));
    expect([llm.status, json(llm)]).toEqual([200, { budgets, errors: [{ pointer: '/budgets/0/usage', code: 'UNAVAILABLE', detail: 'later' }] }]);
  });

  it('fails with the first error when the result has no data, or an error lies outside it', async () => {
    const { bridge } = setup({ data: null, errors: [{ ...down, path: ['actionProposals'] }] });
    const none = await bridge.handle(request('GET', '/api/v1/insight/actions', { headers: { Authorization: 'Bearer t' } }));
    expect(none.status).toBe(503);
    expect(none.headers['retry-after']).toBe('5');
    expect(json(none)).toEqual({ code: 503, message: down.message, data: null });
    for (const outside of [{ message: 'boom', extensions: { code: 'INTERNAL_SERVER_ERROR' } }, { ...gone, path: ['actionProposals'] }]) {
      const response = await setup({ data: { actionProposals: actions }, errors: [gone, outside] }).bridge.handle(request('GET', '/api/v1/insight/actions', { headers: { Authorization: 'Bearer t' } }));
      expect(response.status).not.toBe(200);
      expect(json(response).data).toBeNull();
    }
  });
});

describe('POST /api/v1/auth/token (analysis style)', () => {
  const path = '/api/v1/auth/token';

  it('takes variables from the body and answers {code:200, message, data}', async () => {
    const token = { accessToken: 'jwt', tokenType: 'Bearer', expiresIn: 3600 };
    const { bridge, calls } = setup({ data: { issueAccessToken: token } });
    const response = await bridge.handle(request('POST', path, { body: { username: 'admin', password: 'admin', ignored: true } }));
    expect(calls[0]!.operationName).toBe('IssueAccessToken');
    expect(calls[0]!.variables).toEqual({ username: 'admin', password: 'admin' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json(response)).toEqual({ code: 200, message: 'OK', data: token });
  });

  it('renders errors in the analysis envelope', async () => {
    const { bridge } = setup({ errors: [{ message: 'Wrong username or password', extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });
    const response = await bridge.handle(request('POST', path, { body: { username: 'admin', password: 'x' } }));
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json(response)).toEqual({ code: 401, message: 'Wrong username or password', data: null });
  });

  it('answers 405 with an Allow header for GET', async () => {
    const { bridge, calls } = setup();
    const response = await bridge.handle(request('GET', path));
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(json(response)).toEqual({ code: 405, message: 'GET is not allowed on /api/v1/auth/token; allowed: POST', data: null });
    expect(calls).toHaveLength(0);
  });
});

describe('routing errors', () => {
  it('answers 404 in the cms style for an unknown cms path', async () => {
    const { bridge, calls } = setup();
    const response = await bridge.handle(request('GET', '/api/v1/contents/a/b', { headers: SITE }));
    const body = problem(response, 404, 'route-not-found', '/api/v1/contents/a/b');
    expect(body.detail).toBe('No endpoint at GET /api/v1/contents/a/b');
    expect(calls).toHaveLength(0);
  });

  it('answers 404 in the analysis style for other unknown paths', async () => {
    const { bridge } = setup();
    const response = await bridge.handle(request('GET', '/api/v1/nothing-here'));
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json(response)).toEqual({ code: 404, message: 'No endpoint at GET /api/v1/nothing-here', data: null });
  });

  it('answers 405 with an Allow header in the cms style', async () => {
    const { bridge } = setup();
    const response = await bridge.handle(request('DELETE', '/api/v1/contents/welcome', { headers: SITE }));
    const body = problem(response, 405, 'method-not-allowed', '/api/v1/contents/welcome');
    expect(response.headers.allow).toBe('GET');
    expect(body.title).toBe('Method Not Allowed');
  });

  it('matches a trailing slash', async () => {
    const { bridge, calls } = setup(DELIVERED);
    expect((await bridge.handle(request('GET', '/api/v1/contents/welcome/', { headers: SITE }))).status).toBe(200);
    expect(calls[0]!.variables.slug).toBe('welcome');
  });
});

describe('errorResponse', () => {
  it('renders an SvcError raised before routing as a problem of the path style', () => {
    const { bridge } = setup();
    const response = bridge.errorResponse(
      request('POST', '/api/v1/forms/contact/submit', { headers: SITE }),
      new SvcError('PAYLOAD_TOO_LARGE', 'Request body is larger than 1048576 bytes'),
    );
    const body = problem(response, 413, 'payload-too-large', '/api/v1/forms/contact/submit');
    expect(body.title).toBe('Content Too Large');
    expect(body.detail).toBe('Request body is larger than 1048576 bytes');
  });

  it('uses the analysis envelope on analysis paths', () => {
    const { bridge } = setup();
    const response = bridge.errorResponse(request('POST', '/api/v1/auth/token'), new SvcError('PAYLOAD_TOO_LARGE', 'too big'));
    expect(response.status).toBe(413);
    expect(json(response)).toEqual({ code: 413, message: 'too big', data: null });
  });
});

describe('router answers passed on without parsing (splice.ts)', () => {
  const sample = [{ id: 'a1', title: 'Fix "pricing" }] page', nested: { list: [1, 2.5, null, true], text: 'ü\\' } }];
  /** A request the route accepts: its path with every parameter `p1`, its required headers, an empty object as body. */
  const requestFor = (route: (typeof ROUTES)[number]) => request(route.method, route.path.replace(/\{\w+\}/g, 'p1'), {
    headers: Object.fromEntries((route.requiredHeaders ?? []).map((name) => [name, 'demo'])),
    ...(route.body ? { body: {} } : {}),
  });
  const spliceable = ROUTES.filter((r) => !r.native && !r.events && !r.cache && !r.payload && !r.wrap && !r.headers);

  it('answers every such route with the answer text in its envelope, as parsing and serialising would', async () => {
    expect(spliceable.length).toBeGreaterThan(20);
    // `2.50` survives only if the text is passed on: JSON.stringify would write 2.5.
    const text = JSON.stringify(sample).replace('2.5', '2.50');
    for (const route of spliceable) {
      const bridge = createBridge({ routes: ROUTES, operations, log, execute: async () => ({ status: 200, body: `{"data":{"${route.result}":${text}}}\n` }) });
      const spliced = await bridge.handle(requestFor(route));
      // An extension makes the answer another shape: the bridge parses it and serialises the envelope.
      const parsed = await setup({ data: { [route.result]: sample }, extensions: { note: 1 } } as GraphQLResult).bridge.handle(requestFor(route));
      expect(spliced.body).toContain('[1,2.50,null,true]');
      expect(parsed.body).toContain('[1,2.5,null,true]');
      expect({ route: route.path, status: spliced.status, headers: spliced.headers, body: JSON.parse(spliced.body!) })
        .toEqual({ route: route.path, status: parsed.status, headers: parsed.headers, body: JSON.parse(parsed.body!) });
    }
  });

  it('parses an answer with errors and renders them', async () => {
    const { bridge } = setup({ errors: [{ message: 'Action a1 was decided already', extensions: { code: 'CONFLICT', status: 409 } }], data: null });
    const response = await bridge.handle(request('GET', '/api/v1/insight/actions'));
    expect(response.status).toBe(409);
    expect(json(response)).toEqual({ code: 409, message: 'Action a1 was decided already', data: null });
  });

  it('answers 503 when the router answers with something that is not JSON', async () => {
    const calls: unknown[] = [];
    const bridge = createBridge({ routes: ROUTES, operations, log, execute: async (call) => (calls.push(call), { status: 502, body: '<html>Bad gateway</html>' }) });
    const response = await bridge.handle(request('GET', '/api/v1/insight/actions'));
    expect(response.status).toBe(503);
    expect(json(response)).toMatchObject({ code: 503, data: null });
    expect(calls).toHaveLength(1);
  });
});
