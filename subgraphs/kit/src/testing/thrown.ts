import { expect } from '@jest/globals';
import { SvcError } from '../errors.js';

/** Runs `fn`, expects it to throw an SvcError, and returns that error for further checks. */
export function thrown(fn: () => unknown): SvcError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SvcError);
  return caught as SvcError;
}
