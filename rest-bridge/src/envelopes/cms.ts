import { JSON_TYPE, reasonPhrase, slugOf, type Envelope } from './envelope.js';

/** `{success: true, data}` (a partial answer adds `errors`); every error an RFC 9457 problem with a `{base}/errors/<slug>` type. */
export const cmsEnvelope: Envelope = {
  success: (payload, route) => ({ status: route.status, contentType: JSON_TYPE, body: { success: true, data: payload } }),
  error: (error, context) => ({
    status: error.status,
    contentType: 'application/problem+json; charset=utf-8',
    body: {
      type: `${context.baseUrl}/errors/${slugOf(error)}`,
      title: error.title ?? reasonPhrase(error.status),
      status: error.status,
      detail: error.message,
      instance: context.instance,
      timestamp: new Date().toISOString(),
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
      ...(error.details ?? {}),
    },
  }),
  partial: (payload, problems, route) => ({ status: route.status, contentType: JSON_TYPE, body: { success: true, data: payload, errors: problems } }),
  payloadPointer: '/data',
};
