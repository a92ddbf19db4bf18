import { expect } from '@jest/globals';
import { PiiMaskingError } from './vault.js';

/** Runs `fn`, expects it to throw a PiiMaskingError, and returns that error. */
export function thrown(fn: () => unknown): PiiMaskingError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(PiiMaskingError);
  return caught as PiiMaskingError;
}
