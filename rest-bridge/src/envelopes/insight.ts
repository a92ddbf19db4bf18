import { JSON_TYPE, type Envelope } from './envelope.js';

/** `{code, message, data}`; `code` stays 200 even when the HTTP status is 202; a partial answer adds `errors`. */
export const insightEnvelope: Envelope = {
  success: (payload, route) => ({ status: route.status, contentType: JSON_TYPE, body: { code: 200, message: route.message ?? 'OK', data: payload } }),
  error: (error) => ({
    status: error.status,
    contentType: JSON_TYPE,
    body: { code: error.status, message: error.message, data: null, ...(error.errors ? { errors: error.errors } : {}) },
  }),
  // `errors` as on a validation failure: each part by its pointer into the body.
  partial: (payload, problems, route) => ({
    status: route.status,
    contentType: JSON_TYPE,
    body: { code: 200, message: `Partial answer: ${problems.length === 1 ? '1 part' : `${problems.length} parts`} could not be read (see errors)`, data: payload, errors: problems },
  }),
  payloadPointer: '/data',
};
