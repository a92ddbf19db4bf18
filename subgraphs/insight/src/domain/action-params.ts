import { z } from 'zod';
import type { ActionKind } from './action.js';

const lever = z.string().trim().min(1, 'lever must not be empty').max(200, 'lever must be at most 200 characters');

/**
 * The parameters of the kinds whose shape the analysis service itself relies on: a
 * `CONTENT_RESTORE` names the site (its reviewer must hold it) and the version to bring back;
 * an `EXTERNAL` action names the lever, the change and a summary the operator reads.
 */
export const ACTION_PARAMS: Partial<Record<ActionKind, z.ZodType>> = {
  CONTENT_RESTORE: z.object({
    siteKey: z.string({ error: 'siteKey is required and must be a string' }).min(1, 'siteKey must not be empty'),
    version: z.number({ error: 'version is required and must be a number' }).int('version must be a whole number').min(1, 'version must be at least 1'),
  }).loose(),
  EXTERNAL: z.object({
    lever,
    change: z.object({
      metric: z.string({ error: 'change.metric is required and must be a string' }).min(1, 'change.metric must not be empty'),
      labels: z.record(z.string(), z.string()).optional(),
      changePercent: z.number({ error: 'change.changePercent is required and must be a number' }).finite().min(-100, 'change.changePercent must be at least -100').max(10_000, 'change.changePercent must be at most 10000'),
    }).loose(),
    summary: z.string({ error: 'summary is required and must be a string' }).trim().min(1, 'summary must not be empty').max(2000, 'summary must be at most 2000 characters'),
  }).loose(),
};

/** What is wrong with an action's parameters, in words naming each field; empty when nothing is. */
export function actionParamProblems(kind: ActionKind, params: unknown): string[] {
  const schema = ACTION_PARAMS[kind];
  if (!schema) return [];
  const parsed = schema.safeParse(params);
  return parsed.success ? [] : parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
}
