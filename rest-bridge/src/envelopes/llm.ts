import { openAiErrorBody } from '@svc/kit';
import { JSON_TYPE, type Envelope } from './envelope.js';

/** OpenAI shapes: payloads as they are; errors `{error: {message, type, param, code}}`. */
export const llmEnvelope: Envelope = {
  success: (payload, route) => ({ status: route.status, contentType: JSON_TYPE, body: payload }),
  error: (error) => ({ status: error.status, contentType: JSON_TYPE, body: openAiErrorBody(error) }),
};
