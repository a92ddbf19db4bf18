import { describe, expect, it } from '@jest/globals';
import { GraphQLError, locatedError, type GraphQLFormattedError } from 'graphql';
import { ERROR_STATUS, SvcError, httpStatusOf, isErrorCode, validationError, type ErrorCode } from './errors.js';
import { maskError } from './subgraph/plugins.js';

describe('SvcError', () => {
  it.each(Object.entries(ERROR_STATUS) as [ErrorCode, number][])('%s maps to HTTP %i', (code, status) => {
    const error = new SvcError(code, 'something');
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.extensions.code).toBe(code);
    expect(error.extensions.status).toBe(status);
  });

  it('has the expected statuses for the main codes', () => {
    expect(ERROR_STATUS).toMatchObject({
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      CONFLICT: 409,
      BAD_USER_INPUT: 400,
      RATE_LIMITED: 429,
      UNAVAILABLE: 503,
      INTERNAL_SERVER_ERROR: 500,
      PAYLOAD_TOO_LARGE: 413,
    });
  });

  it('is a GraphQLError named SvcError whose message is kept', () => {
    const error = new SvcError('NOT_FOUND', 'No content welcome');
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SvcError');
    expect(error.message).toBe('No content welcome');
  });

  it('lets BAD_USER_INPUT be 422, and only BAD_USER_INPUT', () => {
    const invalid = new SvcError('BAD_USER_INPUT', 'bad', { status: 422 });
    expect(invalid.status).toBe(422);
    expect(invalid.extensions.status).toBe(422);
    expect(new SvcError('BAD_USER_INPUT', 'bad').status).toBe(400);
    expect(new SvcError('NOT_FOUND', 'x', { status: 422 }).status).toBe(404);
    expect(new SvcError('NOT_FOUND', 'x', { status: 422 }).extensions.status).toBe(404);
  });

  it('copies public options into extensions and only those given', () => {
    const cause = new Error('root cause');
    const error = new SvcError('RATE_LIMITED', 'slow down', { slug: 'form-rate-limited', title: 'Slow', retryAfter: 0, details: { limit: 10 }, cause });
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', status: 429, slug: 'form-rate-limited', title: 'Slow', retryAfter: 0, details: { limit: 10 } });
    expect(error.originalError).toBe(cause);
    expect(new SvcError('CONFLICT', 'c').extensions).toEqual({ code: 'CONFLICT', status: 409 });
  });

  it('isErrorCode knows only the vocabulary', () => {
    expect(isErrorCode('NOT_FOUND')).toBe(true);
    expect(isErrorCode('not_found')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode(404)).toBe(false);
  });
});

describe('validationError', () => {
  const problems = [
    { pointer: '/email', detail: 'must be an e-mail address' },
    { pointer: '/name', detail: 'is required' },
  ];

  it('is a 422 BAD_USER_INPUT naming every field', () => {
    const error = validationError(problems);
    expect(error).toBeInstanceOf(SvcError);
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.status).toBe(422);
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', status: 422, slug: 'validation-failed', title: 'Validation Failed', errors: problems });
    expect(error.message).toBe('Validation failed: /email must be an e-mail address; /name is required');
  });

  it('uses a given message', () => {
    expect(validationError(problems, 'Form has 2 invalid fields').message).toBe('Form has 2 invalid fields');
  });
});

describe('httpStatusOf', () => {
  it('maps known codes', () => {
    expect(httpStatusOf('NOT_FOUND')).toBe(404);
    expect(httpStatusOf('RATE_LIMITED')).toBe(429);
    expect(httpStatusOf('BAD_USER_INPUT')).toBe(400);
  });

  it('prefers a declared error status', () => {
    expect(httpStatusOf('BAD_USER_INPUT', 422)).toBe(422);
    expect(httpStatusOf('UPSTREAM_ERROR', 504)).toBe(504);
  });

  it('ignores declared values that are not error statuses', () => {
    expect(httpStatusOf('NOT_FOUND', 200)).toBe(404);
    expect(httpStatusOf('NOT_FOUND', 600)).toBe(404);
    expect(httpStatusOf('NOT_FOUND', '410')).toBe(404);
  });

  it('falls back to 500 for unknown codes', () => {
    expect(httpStatusOf('SOMETHING_ELSE')).toBe(500);
    expect(httpStatusOf(undefined)).toBe(500);
    expect(httpStatusOf('constructor')).toBe(500);
  });
});

describe('maskError', () => {
  it('keeps an SvcError as it is', () => {
    const error = new SvcError('NOT_FOUND', 'No content welcome', { slug: 'content-not-found' });
    const formatted = error.toJSON();
    expect(maskError(formatted, error)).toBe(formatted);
    expect(maskError(formatted, error).message).toBe('No content welcome');
  });

  it('keeps an SvcError thrown by a resolver (located, with a path)', () => {
    const error = locatedError(new SvcError('FORBIDDEN', 'Not your site'), [], ['submitForm']);
    const formatted = error.toJSON();
    expect(maskError(formatted, error)).toEqual(formatted);
    expect(maskError(formatted, error).message).toBe('Not your site');
  });

  it('masks a plain Error as "Internal server error" without leaking its message', () => {
    const error = new Error('db password leaked');
    const formatted: GraphQLFormattedError = { message: 'db password leaked', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    const masked = maskError(formatted, error);
    expect(masked.message).toBe('Internal server error');
    expect(masked.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', status: 500 });
    expect(JSON.stringify(masked)).not.toContain('db password leaked');
    expect(JSON.stringify(masked)).not.toContain('leaked');
  });

  it('masks a plain Error thrown by a resolver, keeping path and locations', () => {
    const error = locatedError(new Error('db password leaked'), [], ['deliveredContent']);
    const formatted: GraphQLFormattedError = {
      message: 'db password leaked',
      path: ['deliveredContent'],
      locations: [{ line: 1, column: 3 }],
      extensions: { code: 'INTERNAL_SERVER_ERROR', stacktrace: ['Error: db password leaked'] },
    };
    const masked = maskError(formatted, error);
    expect(masked).toEqual({
      message: 'Internal server error',
      path: ['deliveredContent'],
      locations: [{ line: 1, column: 3 }],
      extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 },
    });
    expect(JSON.stringify(masked)).not.toContain('leaked');
  });

  it('masks an Error thrown by a resolver even if its formatted code looks like a client code', () => {
    const error = locatedError(new Error('connection string postgres://u:secret@db'), [], ['x']);
    const formatted: GraphQLFormattedError = { message: error.message, extensions: { code: 'BAD_USER_INPUT' } };
    const masked = maskError(formatted, error);
    expect(masked.message).toBe('Internal server error');
    expect(JSON.stringify(masked)).not.toContain('secret');
  });

  it('passes GraphQL validation errors through', () => {
    const error = new GraphQLError('Cannot query field "nope" on type "Query".', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    const formatted = error.toJSON();
    expect(maskError(formatted, error)).toBe(formatted);
    expect(maskError(formatted, error).message).toBe('Cannot query field "nope" on type "Query".');
  });

  it('passes variable coercion errors (BAD_USER_INPUT) through', () => {
    const error = new GraphQLError('Variable "$data" got invalid value 5; Expected type "JSONObject".', { extensions: { code: 'BAD_USER_INPUT' } });
    const formatted = error.toJSON();
    expect(maskError(formatted, error).message).toBe(error.message);
  });
});
