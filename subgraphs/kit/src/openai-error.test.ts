import { describe, expect, it } from '@jest/globals';
import { SvcError, validationError } from './errors.js';
import { openAiErrorBody, openAiErrors, openAiStreamErrorBody } from './openai-error.js';

const sourceOf = (error: SvcError) => ({ ...(error.extensions as { code: string; status: number }), message: error.message });

describe('openAiErrors', () => {
  it('states type, param and code in details, after which extra members follow', () => {
    const error = openAiErrors.insufficientQuota('spent', { retryAfter: 3600, details: { agentCode: 'a', remainingUsd: 0 } });
    expect(error.extensions).toEqual({ code: 'BUDGET_EXCEEDED', status: 429, retryAfter: 3600, details: { type: 'insufficient_quota', param: null, openaiCode: 'insufficient_quota', agentCode: 'a', remainingUsd: 0 } });
    expect(Object.keys(error.extensions.details as object)).toEqual(['type', 'param', 'openaiCode', 'agentCode', 'remainingUsd']);
  });

  it('leaves an undefined code out of details and keeps a null one', () => {
    expect(openAiErrors.invalidRequest('bad', 'stream').extensions.details).toEqual({ type: 'invalid_request_error', param: 'stream' });
    expect(openAiErrors.invalidRequest('bad', 'model', null).extensions.details).toStrictEqual({ type: 'invalid_request_error', param: 'model', openaiCode: null });
  });

  it('answers 503 upstream_rate_limited when the provider throttled, else 502', () => {
    expect(openAiErrors.upstreamFailure('x', true, 2).extensions).toMatchObject({ code: 'UNAVAILABLE', status: 503, retryAfter: 2, details: { openaiCode: 'upstream_rate_limited' } });
    expect(openAiErrors.upstreamFailure('x', false, undefined).extensions).toEqual({ code: 'UPSTREAM_ERROR', status: 502, details: { type: 'api_error', param: null, openaiCode: 'upstream_error' } });
  });
});

describe('openAiErrorBody', () => {
  it('renders what the error states', () => {
    expect(openAiErrorBody(sourceOf(openAiErrors.notFound('No model', 'model', 'model_not_found')))).toEqual({ error: { message: 'No model', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
  });

  it('infers what it does not state from the status, the first field problem and the slug', () => {
    expect(openAiErrorBody(sourceOf(validationError([{ pointer: '/input/agentCode', detail: 'required' }], 'invalid')))).toEqual({ error: { message: 'invalid', type: 'invalid_request_error', param: 'input.agentCode', code: 'validation-failed' } });
    expect(openAiErrorBody({ code: 'UNAUTHENTICATED', status: 401, message: 'no key' })).toEqual({ error: { message: 'no key', type: 'authentication_error', param: null, code: 'invalid_api_key' } });
    expect(openAiErrorBody({ code: 'INTERNAL_SERVER_ERROR', status: 500, message: 'Internal server error', details: { openaiCode: null } })).toEqual({ error: { message: 'Internal server error', type: 'api_error', param: null, code: 'internal_server_error' } });
  });
});

describe('openAiStreamErrorBody', () => {
  it('says only what a SvcError states, without param', () => {
    expect(openAiStreamErrorBody(openAiErrors.upstreamFailure('Upstream failed', false, undefined))).toEqual({ error: { message: 'Upstream failed', type: 'api_error', param: null, code: 'upstream_error' } });
    expect(openAiStreamErrorBody(openAiErrors.invalidRequest('bad', 'messages'))).toEqual({ error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } });
    expect(openAiStreamErrorBody(new SvcError('CONFLICT', 'busy'))).toEqual({ error: { message: 'busy', type: 'api_error', param: null, code: null } });
  });

  it('masks any other error as an internal one', () => {
    expect(openAiStreamErrorBody(new Error('secret detail'))).toEqual({ error: { message: 'Internal server error', type: 'api_error', param: null, code: null } });
  });
});
