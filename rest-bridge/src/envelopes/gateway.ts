import { JSON_TYPE, type Envelope } from './envelope.js';

const TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  409: 'invalid_request_error', 413: 'invalid_request_error', 415: 'invalid_request_error', 422: 'invalid_request_error',
  429: 'rate_limit_error', 502: 'api_error', 503: 'api_error',
};

/** OpenAI shapes: payloads as they are; errors `{error: {message, type, param, code}}`. */
export const gatewayEnvelope: Envelope = {
  success: (payload, route) => ({ status: route.status, contentType: JSON_TYPE, body: payload }),
  error: (error) => {
    const details = error.details ?? {};
    return {
      status: error.status,
      contentType: JSON_TYPE,
      body: {
        error: {
          message: error.message,
          type: typeof details.type === 'string' ? details.type : (TYPES[error.status] ?? 'api_error'),
          param: typeof details.param === 'string' ? details.param : (error.errors?.[0]?.pointer.replace(/^\//, '').replace(/\//g, '.') ?? null),
          code: typeof details.openaiCode === 'string' ? details.openaiCode : error.status === 401 ? 'invalid_api_key' : (error.slug ?? error.code.toLowerCase()),
        },
      },
    };
  },
};
