import { openAiErrorBody } from '@svc/kit';
import { JSON_TYPE, type Envelope } from './envelope.js';

/** OpenAI shapes: payloads as they are (a partial answer's object adds `errors`); errors `{error: {message, type, param, code}}`. */
export const llmEnvelope: Envelope = {
  success: (payload, route) => ({ status: route.status, contentType: JSON_TYPE, body: payload }),
  error: (error) => ({ status: error.status, contentType: JSON_TYPE, body: openAiErrorBody(error) }),
  // An OpenAI object tolerates a member more; anything else has no room for the list.
  partial: (payload, problems, route) =>
    payload && typeof payload === 'object' && !Array.isArray(payload) ? { status: route.status, contentType: JSON_TYPE, body: { ...payload, errors: problems } } : undefined,
  payloadPointer: '',
};
