import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import pg from 'pg';
import { OPERATIONS_DIR } from '@svc/kit';
import { parse, Kind, type OperationDefinitionNode } from 'graphql';
import { call } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * Property-based fuzzing of every REST path in `/openapi.json` and every named GraphQL
 * operation the platform sends: valid-looking and hostile inputs (wrong types, nulls where
 * objects belong, NUL and lone surrogates, huge and far-out values, nesting) under every kind
 * of credential. Whatever is sent, the answer is never a 5xx (no dependency is down here), its
 * status is documented, a success has the documented shape, a body the document forbids is
 * refused (the document is generated from the services' zod contracts: this is where drift would
 * show), an error is in the documented error shape of the path's service, and a refused write
 * leaves the tables that path writes exactly as they were. Seeded and bounded
 * (FUZZ_SEED, FUZZ_RUNS); fast-check prints the seed and the shrunk counterexample on failure.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

interface Operation {
  path: string;
  method: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: { type: string } }[];
  body?: JsonSchema;
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; required?: string[]; enum?: unknown[] };

let platform: TestPlatform;
let credentials: Record<string, string | undefined>;
let operations: Operation[];
let db: pg.Client;
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });

/**
 * What each write path changes, as one fingerprint query per table: a refused request must leave
 * it unchanged. Columns that background work updates (a crawl job's next run, a key's last use)
 * are left out.
 */
const fingerprint = (table: string, columns: string) => `select md5(coalesce(string_agg(x, ',' order by x), '')) as f from (select (${columns})::text as x from ${table} r) t`;
const WRITES: Record<string, string[]> = {
  'post /api/v1/insight/jobs': [fingerprint('insight.job', 'id, status, prompt')],
  'post /api/v1/insight/jobs/{jobId}/cancel': [fingerprint('insight.job', 'id, status')],
  'post /api/v1/insight/actions/{actionId}/approve': [fingerprint('insight.action', 'id, status')],
  'post /api/v1/insight/actions/{actionId}/reject': [fingerprint('insight.action', 'id, status')],
  'put /api/v1/insight/settings': [fingerprint('insight.tenant_settings', 'tenant_id, operator_webhook_url, operator_webhook_secret')],
  'post /api/v1/insight/metrics': [fingerprint('insight.metric_series', 'id'), fingerprint('insight.metric_point', 'r.*'), fingerprint('insight.metric_definition', 'tenant_id, name, definition')],
  'post /api/v1/insight/metrics/import': [fingerprint('insight.metric_series', 'id'), fingerprint('insight.metric_point', 'r.*')],
  'delete /api/v1/insight/metrics/{name}': [fingerprint('insight.metric_series', 'id'), fingerprint('insight.metric_point', 'r.series_id, r.t')],
  'put /api/v1/insight/metrics/{name}/definition': [fingerprint('insight.metric_definition', 'tenant_id, name, definition')],
  'post /api/v1/insight/events': [fingerprint('insight.timeline_event', 'id')],
  'post /api/v1/forms/{formKey}/submit': [fingerprint('cms.form_submission', 'id')],
  'post /api/v1/crawl/jobs': [fingerprint('crawl.crawl_job', 'id')],
  'post /api/v1/crawl/jobs/{jobId}/trigger': [fingerprint('crawl.crawl_execution', 'id')],
  'post /api/v1/crawl/jobs/{jobId}/pause': [fingerprint('crawl.crawl_job', 'id, status')],
  'post /api/v1/crawl/jobs/{jobId}/resume': [fingerprint('crawl.crawl_job', 'id, status')],
  'delete /api/v1/crawl/jobs/{jobId}': [fingerprint('crawl.crawl_job', 'id')],
  'post /api/v1/auth/password': [fingerprint('insight.account', 'username, password_hash, sessions_ended_at')],
  'post /api/v1/admin/users': [fingerprint('insight.account', 'username, roles, tenants, sites, disabled_at, password_hash')],
  'patch /api/v1/admin/users/{username}': [fingerprint('insight.account', 'username, roles, tenants, sites, sessions_ended_at')],
  'post /api/v1/admin/users/{username}/disable': [fingerprint('insight.account', 'username, disabled_at, sessions_ended_at')],
  'post /api/v1/admin/users/{username}/enable': [fingerprint('insight.account', 'username, disabled_at')],
  'put /api/v1/admin/users/{username}/password': [fingerprint('insight.account', 'username, password_hash, sessions_ended_at')],
  'post /admin/v1/budgets': [fingerprint('llm.agent', 'code, monthly_budget_usd, hard_limit_enabled, alert_webhook_url, alert_threshold_percent')],
  'post /admin/v1/keys': [fingerprint('llm.api_key', 'id, revoked_at')],
  'delete /admin/v1/keys/{id}': [fingerprint('llm.api_key', 'id, revoked_at')],
  'post /admin/v1/agents/{agentCode}/limits': [fingerprint('llm.agent', 'code, rpm_limit, tpm_limit, concurrency_limit')],
  'post /admin/v1/keys/{id}/limits': [fingerprint('llm.api_key', 'id, rpm_limit, tpm_limit, concurrency_limit')],
};
/** The schema with every documented member required, all the way down: a success must carry what its document promises. */
function everyMemberRequired(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(everyMemberRequired);
  if (!schema || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, everyMemberRequired(ps)])) : everyMemberRequired(v)]));
  if ((schema as { properties?: object }).properties) out.required = Object.keys((schema as { properties: object }).properties);
  return out;
}
const stateOf = async (queries: string[]) => Promise.all(queries.map(async (q) => (await db.query(q)).rows[0].f as string));

const hostileString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('', ' ', 'a\u0000b', '\ud800', '😀', '../../etc/passwd', '%00', '<img src=x onerror=alert(1)>', "' or 1=1 --", '9'.repeat(400), '275760-09-13', '-1', '0', 'null', 'welcome', 'demo', 'contact', '00000000-0000-0000-0000-000000000000'),
  fc.uuid(),
);
const hostileScalar = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2));

/** Values shaped by the schema most of the time, and anything else some of the time. */
function valueOf(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  const anything = depth > 3 ? hostileScalar : fc.oneof(hostileScalar, fc.array(hostileScalar, { maxLength: 3 }), fc.dictionary(hostileString, hostileScalar, { maxKeys: 3 }));
  if (!schema || depth > 4) return anything;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const shaped: fc.Arbitrary<unknown>[] = [];
  if (schema.enum) shaped.push(fc.constantFrom(...schema.enum));
  if (types.includes('object') || schema.properties) {
    const props = Object.entries(schema.properties ?? {});
    shaped.push(fc.record(Object.fromEntries(props.map(([k, v]) => [k, valueOf(v, depth + 1)])), { requiredKeys: [] }));
  }
  if (types.includes('array')) shaped.push(fc.array(valueOf(schema.items, depth + 1), { maxLength: 4 }));
  if (types.includes('string')) shaped.push(hostileString);
  if (types.includes('integer') || types.includes('number')) shaped.push(fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constantFrom(0, -1, 1e9, 2 ** 53)));
  if (types.includes('boolean')) shaped.push(fc.boolean());
  return shaped.length ? fc.oneof({ weight: 4, arbitrary: fc.oneof(...shaped) }, { weight: 1, arbitrary: anything }) : anything;
}

function requestOf(op: Operation) {
  const params = fc.record(Object.fromEntries(op.parameters.map((p) => [p.name, p.required ? hostileString : fc.option(hostileString, { nil: undefined })])), { requiredKeys: op.parameters.filter((p) => p.required).map((p) => p.name) });
  return fc.record({
    params,
    body: op.body ? fc.oneof({ weight: 5, arbitrary: valueOf(op.body) }, { weight: 1, arbitrary: fc.constantFrom('{"a":', '[]', '""', `${'['.repeat(100)}${']'.repeat(100)}`) }) : fc.constant(undefined),
    credential: fc.constantFrom(...Object.keys(credentials)),
  });
}

async function send(op: Operation, input: { params: Record<string, string | undefined>; body: unknown; credential: string }) {
  let path = op.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of op.parameters) {
    const value = input.params[p.name];
    if (value === undefined) continue;
    // A lone surrogate cannot be sent in a URL: it goes as U+FFFD, as a browser would send it.
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(value.toWellFormed()));
    else if (p.in === 'query') query.set(p.name, value);
    else if (/^[\t\x20-\x7e]*$/.test(value)) headers[p.name] = value; // a header can only carry visible ASCII
  }
  const token = credentials[input.credential];
  if (token) headers.authorization = `Bearer ${token}`;
  const body = input.body === undefined ? undefined : typeof input.body === 'string' && op.body && /^[[{"]/.test(input.body) ? input.body : JSON.stringify(input.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const qs = query.toString();
  return call(`${platform.bridge}${path}${qs ? `?${qs}` : ''}`, { method: op.method.toUpperCase(), headers, ...(body !== undefined ? { body } : {}) });
}

beforeAll(async () => {
  platform = await startTestPlatform({ SVC_INSIGHT_WORKER: 'false', SVC_FORM_RATE_LIMIT_PER_MINUTE: '10000' });
  const key = await call(`${platform.bridge}/admin/v1/keys`, { headers: { authorization: `Bearer ${TEST_MASTER_KEY}` }, json: { agentCode: 'fuzzer' } });
  credentials = {
    none: undefined,
    garbage: 'not-a-token',
    admin: await platform.token({ subject: 'root' }),
    analyst: await platform.token({ subject: 'ana', roles: ['analyst'], tenants: ['acme'], sites: ['demo'] }),
    master: TEST_MASTER_KEY,
    agent: key.body.key,
  };
  const doc = (await call(`${platform.bridge}/openapi.json`)).body as { paths: Record<string, Record<string, { parameters: Operation['parameters']; requestBody?: { content: Record<string, { schema: JsonSchema }> }; responses: Operation['responses'] }>> };
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, spec]) => ({ path, method, parameters: spec.parameters ?? [], body: spec.requestBody?.content['application/json']?.schema, responses: spec.responses })),
  );
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
});

describe('REST paths under fuzzing', () => {
  it('covers every documented path, and knows what each write path changes', () => {
    expect(operations.length).toBeGreaterThan(30);
    const writes = operations.filter((op) => op.method !== 'get' && !op.path.startsWith('/v1/') && op.path !== '/api/v1/auth/token' && op.path !== '/api/v1/deploy/purge-cache');
    expect(writes.filter((op) => !WRITES[`${op.method} ${op.path}`]).map((op) => `${op.method} ${op.path}`)).toEqual([]);
  });

  it('never answer 5xx, answer only documented statuses, and every error is JSON in the path\'s error shape', async () => {
    const seen = { refusedWrites: 0, forbiddenBodies: 0, successes: 0 };
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(requestOf(op), async (input) => {
          const writes = WRITES[`${op.method} ${op.path}`] ?? [];
          const before = await stateOf(writes);
          const reply = await send(op, input);
          const where = `${op.method.toUpperCase()} ${op.path}`;
          expect({ where, status: reply.status, body: reply.status >= 500 ? reply.text.slice(0, 300) : '' }).toEqual({ where, status: expect.any(Number), body: '' });
          // Every status a path answers is documented in /openapi.json (what client generators rely on).
          // (405: an empty path parameter lands on another path's resource, which does not take this method.)
          if (reply.status !== 405) expect({ where, status: reply.status, documented: String(reply.status) in op.responses }).toEqual({ where, status: reply.status, documented: true });
          if (reply.status >= 400 && reply.status !== 405) {
            expect(() => JSON.parse(reply.text)).not.toThrow();
            const shape = reply.body as Record<string, unknown>;
            const ok = 'error' in shape || ('code' in shape && 'message' in shape) || ('status' in shape && 'title' in shape) || 'errors' in shape;
            expect({ where, ok, body: ok ? '' : reply.text.slice(0, 200) }).toEqual({ where, ok: true, body: '' });
            // Refused means refused: nothing this path writes has changed.
            expect({ where, status: reply.status, state: await stateOf(writes) }).toEqual({ where, status: reply.status, state: before });
            if (writes.length) seen.refusedWrites++;
          }
          // A body the document forbids is never accepted (the document and the services' rules are one zod schema).
          if (op.body && input.body !== null && typeof input.body === 'object' && !ajv.validate(op.body, input.body)) {
            expect({ where, body: input.body, status: reply.status < 400 ? reply.status : 'refused' }).toEqual({ where, body: input.body, status: 'refused' });
            seen.forbiddenBodies++;
          }
          // A success has the documented shape.
          const success = op.responses[String(reply.status)]?.content?.['application/json'] as { schema?: JsonSchema } | undefined;
          if (reply.status < 300 && success?.schema && reply.headers.get('content-type')?.includes('json')) {
            const valid = ajv.validate(everyMemberRequired(success.schema) as JsonSchema, reply.body);
            expect({ where, valid, errors: valid ? null : ajv.errorsText(ajv.errors) }).toEqual({ where, valid: true, errors: null });
            seen.successes++;
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
    }
    // Each check above really ran, many times.
    expect(seen.refusedWrites).toBeGreaterThan(100);
    expect(seen.forbiddenBodies).toBeGreaterThan(100);
    expect(seen.successes).toBeGreaterThan(20);
  });
});

describe('GraphQL operations under fuzzing', () => {
  it('answer every variable set without a 5xx or an internal error', async () => {
    const files = (await readdir(OPERATIONS_DIR)).filter((f) => f.endsWith('.graphql'));
    const documents = await Promise.all(files.map((f) => readFile(join(OPERATIONS_DIR, f), 'utf8')));
    const text = documents.join('\n');
    const ops = parse(text).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'query');
    expect(ops.length).toBeGreaterThan(5);
    for (const op of ops) {
      const names = (op.variableDefinitions ?? []).map((v) => v.variable.name.value);
      await fc.assert(
        fc.asyncProperty(fc.record(Object.fromEntries(names.map((n) => [n, valueOf(undefined)])), { requiredKeys: [] }), fc.constantFrom('admin', 'analyst', 'agent'), async (variables, who) => {
          const reply = await call(platform.router, { headers: { authorization: `Bearer ${credentials[who]}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: text, operationName: op.name!.value, variables }) });
          const internal = (reply.body?.errors ?? []).filter((e: { extensions?: { code?: string } }) => e.extensions?.code === 'INTERNAL_SERVER_ERROR');
          expect({ op: op.name!.value, status: reply.status < 500, internal }).toEqual({ op: op.name!.value, status: true, internal: [] });
        }),
        { seed: SEED, numRuns: Math.ceil(RUNS / 2), endOnFailure: true },
      );
    }
  });
});
