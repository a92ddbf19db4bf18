import type { JsonSchema, RouteSpec, Style } from './route-spec.js';

const problem: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'instance', 'timestamp'],
  properties: {
    type: { type: 'string', format: 'uri' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    timestamp: { type: 'string', format: 'date-time' },
    errors: { type: 'array', items: { type: 'object', properties: { pointer: { type: 'string' }, detail: { type: 'string' } } } },
  },
};

const ERROR_SCHEMAS: Record<Style, { mediaType: string; schema: JsonSchema }> = {
  cms: { mediaType: 'application/problem+json', schema: problem },
  insight: {
    mediaType: 'application/json',
    schema: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: { type: 'null' }, errors: { type: 'array' } } },
  },
  crawl: {
    mediaType: 'application/json',
    schema: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, data: { type: 'null' } } },
  },
  llm: {
    mediaType: 'application/json',
    schema: {
      type: 'object',
      properties: {
        error: { type: 'object', properties: { message: { type: 'string' }, type: { type: 'string' }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } } },
      },
    },
  },
};

function envelope(style: Style, payload: JsonSchema): JsonSchema {
  switch (style) {
    case 'insight':
      return { type: 'object', properties: { code: { type: 'integer', const: 200 }, message: { type: 'string' }, data: payload } };
    case 'crawl':
      return { type: 'object', properties: { code: { type: 'string', const: 'SUCCESS' }, data: payload } };
    case 'cms':
      return { type: 'object', properties: { success: { type: 'boolean', const: true }, data: payload } };
    case 'llm':
      return payload;
  }
}

/**
 * A partial answer (rest-bridge/src/partial.ts) is the success with one member more, `errors`:
 * said in the description, not among the schema's members, which every success carries.
 */
const PARTIAL = 'Success. A partial answer (header X-Svc-Partial: <parts>, Cache-Control: no-store) is the same with the parts that could not be read null and one member more, `errors`: [{pointer, code, detail}], a JSON pointer into this body for each part, its code (ENTITY_NOT_FOUND, FORBIDDEN, UNAVAILABLE, ...) and why.';

const SECURITY: Record<RouteSpec['security'], Record<string, string[]>[]> = {
  bearer: [{ bearerAuth: [] }],
  apiKey: [{ apiKey: [] }],
  none: [],
};

const DEFAULT_ERRORS: Record<number, string> = {
  400: 'Malformed request', 401: 'Missing, expired or invalid credential', 403: 'Credential lacks the role, tenant or site',
  406: 'Accept header cannot be served', 415: 'Content-Type is not application/json', 413: 'Body larger than the limit',
  503: 'A backing service is unavailable',
};

/** The OpenAPI 3.1 document, generated from the same route table the bridge serves. */
export function openApiDocument(routes: readonly RouteSpec[], info: { title: string; version: string }): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters = Object.values(route.variables)
      .filter((s) => s.startsWith('path.') || s.startsWith('query.') || s.startsWith('header.'))
      .map((s) => {
        const [where, ...name] = s.split('.');
        const required = where === 'path' || (where === 'header' && (route.requiredHeaders ?? []).some((h) => h.toLowerCase() === name.join('.').toLowerCase()));
        const documented = where === 'query' ? (route.query?.properties as Record<string, JsonSchema> | undefined)?.[name.join('.')] : undefined;
        const requiredInQuery = where === 'query' && ((route.query?.required as string[] | undefined) ?? []).includes(name.join('.'));
        return { name: name.join('.'), in: where, required: required || requiredInQuery, schema: documented ?? { type: 'string' } };
      });
    // A native route reads its path itself: its template parameters are documented from the path.
    for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
      if (!parameters.some((p) => p.in === 'path' && p.name === name)) parameters.push({ name: name!, in: 'path', required: true, schema: { type: 'string' } });
    }
    if (route.events) parameters.push({ name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } });
    const errorSchema = ERROR_SCHEMAS[route.style];
    const errors = { ...DEFAULT_ERRORS, ...(route.errors ?? {}) };
    if (!route.body && !route.bodyMediaTypes) {
      delete errors[415];
      delete errors[413];
    }
    const responses: Record<string, unknown> = {
      [route.status]: route.events
        ? { description: 'Server-Sent Events', content: { 'text/event-stream': { schema: route.response } } }
        : { description: PARTIAL, content: { 'application/json': { schema: envelope(route.style, route.response) } } },
    };
    if (route.native && route.path === '/v1/chat/completions') {
      // stream: true answers Server-Sent Events of chat.completion.chunk, ending with `data: [DONE]`.
      (responses[route.status] as { content: Record<string, unknown> }).content['text/event-stream'] = { schema: { type: 'string', description: 'data: {chat.completion.chunk}\\n\\n ... data: [DONE]' } };
    }
    if (route.cache) responses['304'] = { description: 'Not modified (If-None-Match matched the ETag)' };
    for (const [status, description] of Object.entries(errors)) {
      responses[status] = { description, content: { [errorSchema.mediaType]: { schema: errorSchema.schema } } };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.operationId ?? route.operation,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [route.tag],
      security: SECURITY[route.security],
      parameters,
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
      ...(route.bodyMediaTypes ? { requestBody: { required: true, content: Object.fromEntries(Object.entries(route.bodyMediaTypes).map(([type, schema]) => [type, { schema }])) } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { ...info, description: 'REST paths of Svc Platform. Each call becomes one GraphQL operation on the federated router.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /api/v1/auth/token' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'Model gateway virtual API key (sk-svc-...) or the master key' },
      },
    },
  };
}
