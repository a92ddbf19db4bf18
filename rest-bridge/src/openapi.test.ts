import { describe, expect, it } from '@jest/globals';
import { openApiDocument } from './openapi.js';
import { ROUTES } from './routes/index.js';

const doc = openApiDocument(ROUTES, { title: 'Svc Platform REST', version: '9.9.9' }) as any;

type Parameter = { name: string; in: string; required: boolean; schema: unknown };
const operationOf = (path: string, method: string) => doc.paths[path]?.[method.toLowerCase()];

describe('openApiDocument', () => {
  it('is an OpenAPI 3.1.0 document with the given info', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Svc Platform REST', version: '9.9.9' });
    expect(typeof doc.info.description).toBe('string');
  });

  it('has exactly the routes of the table, each with operationId = the route operation (or its own operationId)', () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of ROUTES) {
      const op = operationOf(route.path, route.method);
      expect(op.operationId).toBe(route.operationId ?? route.operation);
      expect(op.summary).toBe(route.summary);
      expect(op.tags).toEqual([route.tag]);
    }
    expect(ROUTES.map((r) => r.path)).toEqual(
      expect.arrayContaining(['/api/v1/auth/token', '/api/v1/contents/{contentSlug}', '/api/v1/forms/{formKey}/submit', '/api/v1/deploy/purge-cache']),
    );
  });

  it('documents both answers of a chat completion: JSON, and Server-Sent Events when streamed', () => {
    const content = (operationOf('/v1/chat/completions', 'POST').responses as Record<string, { content: Record<string, unknown> }>)['200']!.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/event-stream']);
  });

  it('has unique operationIds', () => {
    const ids = ROUTES.map((r) => operationOf(r.path, r.method).operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every path template parameter as a required path parameter', () => {
    for (const route of ROUTES) {
      const templated = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const params = (operationOf(route.path, route.method).parameters as Parameter[]).filter((p) => p.in === 'path');
      expect(params.map((p) => p.name).sort()).toEqual(templated.sort());
      for (const p of params) expect(p).toEqual({ name: p.name, in: 'path', required: true, schema: { type: 'string' } });
    }
    expect(operationOf('/api/v1/contents/{contentSlug}', 'GET').parameters).toContainEqual({
      name: 'contentSlug', in: 'path', required: true, schema: { type: 'string' },
    });
  });

  it.each([
    ['GET', '/api/v1/contents/{contentSlug}'],
    ['POST', '/api/v1/forms/{formKey}/submit'],
  ])('%s %s requires the X-Svc-Site-Key header, a parameter naming the site, not a credential (missing: 400)', (method, path) => {
    const params = operationOf(path, method).parameters as Parameter[];
    const header = params.filter((p) => p.in === 'header' && p.name.toLowerCase() === 'x-svc-site-key');
    expect(header).toHaveLength(1);
    expect(header[0]!.required).toBe(true);
    expect(operationOf(path, method).security).toEqual([]);
    expect(operationOf(path, method).responses['400']).toBeDefined();
  });

  it('declares the security schemes the operations use', () => {
    expect(doc.components.securitySchemes.siteKey).toBeUndefined();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(operationOf('/api/v1/deploy/purge-cache', 'POST').security).toEqual([{ bearerAuth: [] }]);
    expect(operationOf('/api/v1/auth/token', 'POST').security).toEqual([]);
    for (const route of ROUTES) {
      for (const requirement of operationOf(route.path, route.method).security as Record<string, unknown>[]) {
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
      }
    }
  });

  it('has a required requestBody exactly on routes that take a body: JSON, or the media types of a file upload', () => {
    // POST routes without a body exist (the crawl trigger, pause and resume take none); PATCH and PUT take one.
    expect(ROUTES.filter((r) => r.body || r.bodyMediaTypes).every((r) => ['POST', 'PATCH', 'PUT'].includes(r.method))).toBe(true);
    expect(ROUTES.filter((r) => r.method === 'PATCH' || r.method === 'PUT').every((r) => r.body)).toBe(true);
    for (const route of ROUTES) {
      const op = operationOf(route.path, route.method);
      if (route.body) {
        expect(op.requestBody).toEqual({ required: true, content: { 'application/json': { schema: route.body } } });
      } else if (route.bodyMediaTypes) {
        expect(Object.keys(op.requestBody.content)).toEqual(Object.keys(route.bodyMediaTypes));
        expect(route.native).toBeDefined(); // only a native route reads a body that is not JSON
      } else {
        expect(op.requestBody).toBeUndefined();
      }
    }
    expect(operationOf('/api/v1/auth/token', 'POST').requestBody.content['application/json'].schema.required).toEqual(['username', 'password']);
    expect(Object.keys(operationOf('/api/v1/insight/metrics/import', 'POST').requestBody.content)).toEqual(['text/csv', 'application/x-ndjson']);
  });

  it('documents the success status of each route with its envelope', () => {
    for (const route of ROUTES) {
      const responses = operationOf(route.path, route.method).responses;
      expect(responses[String(route.status)]).toBeDefined();
      if (route.events) {
        // Event streams are not JSON: the document says text/event-stream.
        expect(Object.keys(responses[String(route.status)].content)).toEqual(['text/event-stream']);
        continue;
      }
      const schema = responses[String(route.status)].content['application/json'].schema;
      // OpenAI shapes (llm) have no envelope: the payload is the body.
      expect(route.style === 'llm' ? schema : schema.properties.data).toEqual(route.response);
    }
    const form = operationOf('/api/v1/forms/{formKey}/submit', 'POST').responses;
    expect(form['201']).toBeDefined();
    expect(form['200']).toBeUndefined();
    expect(form['201'].content['application/json'].schema.properties.success).toEqual({ type: 'boolean', const: true });
    const token = operationOf('/api/v1/auth/token', 'POST').responses['200'].content['application/json'].schema;
    expect(token.properties.code).toEqual({ type: 'integer', const: 200 });
  });

  it('documents 304 for the cacheable delivery route only', () => {
    expect(operationOf('/api/v1/contents/{contentSlug}', 'GET').responses['304']).toBeDefined();
    expect(operationOf('/api/v1/forms/{formKey}/submit', 'POST').responses['304']).toBeUndefined();
  });

  it('documents problem+json error responses for cms routes', () => {
    for (const route of ROUTES.filter((r) => r.style === 'cms')) {
      const responses = operationOf(route.path, route.method).responses as Record<string, any>;
      const errors = Object.keys(responses).filter((s) => Number(s) >= 400);
      expect(errors).toEqual(expect.arrayContaining(['400', '401', '403', '406', '503']));
      for (const status of errors) {
        const content = responses[status].content;
        expect(Object.keys(content)).toEqual(['application/problem+json']);
        expect(content['application/problem+json'].schema.required).toEqual(['type', 'title', 'status', 'detail', 'instance', 'timestamp']);
        expect(content['application/problem+json'].schema.properties.errors.type).toBe('array');
      }
      for (const status of Object.keys(route.errors ?? {})) expect(responses[status].description).toBe(route.errors![Number(status)]);
    }
    const form = operationOf('/api/v1/forms/{formKey}/submit', 'POST').responses;
    expect(Object.keys(form)).toEqual(expect.arrayContaining(['404', '413', '415', '422', '429']));
  });

  it('leaves body errors (413, 415) out of routes without a body', () => {
    const get = operationOf('/api/v1/contents/{contentSlug}', 'GET').responses;
    expect(get['413']).toBeUndefined();
    expect(get['415']).toBeUndefined();
    expect(get['404']).toBeDefined();
  });

  it('documents analysis-style errors as application/json', () => {
    const responses = operationOf('/api/v1/auth/token', 'POST').responses;
    expect(Object.keys(responses['400'].content)).toEqual(['application/json']);
    expect(responses['400'].content['application/json'].schema.properties.code).toEqual({ type: 'integer' });
  });

  it('is serialisable JSON', () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});
