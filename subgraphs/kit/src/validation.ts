import type { z } from 'zod';
import { SvcError, validationError, type FieldProblem } from './errors.js';
import { checkDate } from './input-guard.js';
import { describeIssue } from './contract.js';

/** A zod issue path as a JSON pointer (RFC 6901): `/series/0/points/3/value`; empty for the whole value. */
export function pointerOf(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** zod issues as JSON pointers into the request (`/series/0/points/3/value`); given the input, each detail names the member and quotes its value. */
export function problemsOf(error: z.ZodError, prefix = '', input?: unknown): FieldProblem[] {
  return error.issues.map((issue) => ({
    pointer: `${prefix}${pointerOf(issue.path)}` || '/',
    detail: input === undefined ? issue.message : describeIssue({ path: issue.path, message: issue.message, code: issue.code }, input),
  }));
}

/** Parses `value` with `schema`, or throws one 422 naming every offending field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = '', options: { describe?: boolean } = {}): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(problemsOf(parsed.error, prefix, options.describe ? value : undefined));
  return parsed.data;
}

const DAY_MS = 86_400_000;

/**
 * A reporting window [from, to) given by a caller: both real dates (years 1-9999), `from` before `to`, at most
 * `maxDays` long. Anything else is a 400 naming the argument.
 */
export function checkWindow(from: Date, to: Date, maxDays: number): { from: Date; to: Date } {
  checkDate(from, 'from');
  checkDate(to, 'to');
  if (from.getTime() >= to.getTime()) throw new SvcError('BAD_USER_INPUT', `from (${from.toISOString()}) must be before to (${to.toISOString()})`, { errors: [{ pointer: '/from', detail: 'not before to' }] });
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) {
    throw new SvcError('BAD_USER_INPUT', `The window from ${from.toISOString()} to ${to.toISOString()} is longer than ${maxDays} days`, { errors: [{ pointer: '/to', detail: `more than ${maxDays} days after from` }] });
  }
  return { from, to };
}
