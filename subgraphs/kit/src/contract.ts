import { z } from 'zod';

/** JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of what a zod schema accepts (`input`, for request bodies and queries) or
 * produces (`output`, for payloads): how the OpenAPI document is made from the schemas the
 * services validate with, so the two cannot drift. Refinements that JSON Schema cannot say
 * (a cron expression that must parse) are left to the schema's `description`.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** The OpenAI-style name of the parameter a zod issue is about: `messages[0].content`; null for the body itself. */
export function paramOf(path: readonly PropertyKey[]): string | null {
  let param = '';
  for (const key of path) param += typeof key === 'number' ? `[${key}]` : `${param ? '.' : ''}${String(key)}`;
  return param || null;
}

/** The value at a zod issue's path inside what was parsed (to quote it back in a message). */
export function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) at = at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return at;
}

export interface ContractIssue {
  path: PropertyKey[];
  message: string;
  code: string;
}

/**
 * The issue to report first, with its full path. A union that failed is reported by the branch
 * that got furthest into the value (`content: [null]` is about `content[0]`, not "not a string").
 */
export function primaryIssue(error: z.ZodError): ContractIssue {
  return innermost(error.issues[0]!);
}

function innermost(issue: z.core.$ZodIssue, prefix: PropertyKey[] = []): ContractIssue {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length) {
    const branches = issue.errors.filter((branch) => branch.length > 0);
    const furthest = branches.reduce<z.core.$ZodIssue[] | undefined>((best, branch) => (!best || branch[0]!.path.length > best[0]!.path.length ? branch : best), undefined);
    if (furthest && furthest[0]!.path.length > 0) return innermost(furthest[0]!, path);
  }
  return { path, message: issue.message, code: issue.code };
}

/** `param must be ...; got <value>` with the value quoted and shortened (a client's text is not echoed at length). */
export function describeIssue(issue: ContractIssue, input: unknown): string {
  const param = paramOf(issue.path);
  const value = valueAt(input, issue.path);
  const quoted = value === undefined ? '' : `; got ${JSON.stringify(value)?.slice(0, 80) ?? String(value)}`;
  return `${param ?? 'The request body'} ${issue.message}${quoted}`;
}
