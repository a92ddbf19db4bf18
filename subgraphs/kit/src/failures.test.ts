import { describe, expect, it } from '@jest/globals';
import { locatedError } from 'graphql';
import { runInNewContext } from 'node:vm';
import { isDependencyDown, knownFailure } from './failures.js';

describe('isDependencyDown', () => {
  const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });

  it('knows a dropped connection, an operator shutdown and a refused connect, also as a cause', () => {
    expect(isDependencyDown(reset)).toBe(true);
    expect(isDependencyDown(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDependencyDown(new Error('query failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }))).toBe(true);
    expect(isDependencyDown(new Error('duplicate key value'))).toBe(false);
  });

  it('finds a socket error from another realm inside graphql-js\'s NonErrorThrown, as a resolver\'s error arrives', () => {
    // An Error of another realm is not `instanceof Error` here: graphql-js wraps it.
    const foreign = runInNewContext('Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" })');
    const wrapped = locatedError(foreign, undefined).originalError!;
    expect(wrapped.name).toBe('NonErrorThrown');
    expect(isDependencyDown(wrapped)).toBe(true);
    expect(knownFailure(wrapped)?.code).toBe('UNAVAILABLE');
    expect(isDependencyDown(locatedError(runInNewContext('new Error("boom")'), undefined).originalError)).toBe(false);
  });
});
