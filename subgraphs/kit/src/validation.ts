import type { z } from 'zod';
import { validationError, type FieldProblem } from './errors.js';

/** zod issues as JSON pointers into the request (`/series/0/points/3/value`). */
export function problemsOf(error: z.ZodError, prefix = ''): FieldProblem[] {
  return error.issues.map((issue) => ({
    pointer: `${prefix}/${issue.path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`.replace(/\/$/, '') || '/',
    detail: issue.message,
  }));
}

/** Parses `value` with `schema`, or throws one 422 naming every offending field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(problemsOf(parsed.error, prefix));
  return parsed.data;
}
