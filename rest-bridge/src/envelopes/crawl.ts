import { JSON_TYPE, type Envelope } from './envelope.js';

/** `{code: "SUCCESS", data}` (a partial answer adds `errors`); errors `{code: "<ERROR_CODE>", message, data: null}`. */
export const crawlEnvelope: Envelope = {
  success: (payload, route) => ({ status: route.status, contentType: JSON_TYPE, body: { code: 'SUCCESS', data: payload } }),
  error: (error) => ({
    status: error.status,
    contentType: JSON_TYPE,
    body: { code: error.status === 422 ? 'VALIDATION_FAILED' : error.code, message: error.message, data: null, ...(error.errors ? { errors: error.errors } : {}) },
  }),
  partial: (payload, problems, route) => ({ status: route.status, contentType: JSON_TYPE, body: { code: 'SUCCESS', data: payload, errors: problems } }),
  payloadPointer: '/data',
};
