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

const siteKey = z.string({ error: 'siteKey is required and must be a string' }).min(1, 'siteKey must not be empty');
const version = (name: string) => z.number({ error: `${name} must be a number` }).int(`${name} must be a whole number`).min(1, `${name} must be at least 1`);
const texts = z.record(z.string(), z.string().nullable());

/**
 * What a proposal of the other kinds must carry before a reviewer sees it. Their execution leaves
 * the checks to the target subgraph (`actionParamProblems` passes them), but a proposal, from the
 * report's rules or a model, is refused here when it is incomplete, so a reviewer never approves
 * a change that cannot run.
 */
export const PROPOSAL_PARAMS: Partial<Record<ActionKind, z.ZodType>> = {
  // Spread into setBudget's input as it is: only its members.
  BUDGET_CHANGE: z.object({
    monthlyBudgetUsd: z.number({ error: 'monthlyBudgetUsd is required and must be a number' }).positive('monthlyBudgetUsd must be above 0').max(1_000_000, 'monthlyBudgetUsd must be at most 1000000'),
    hardLimitEnabled: z.boolean({ error: 'hardLimitEnabled must be true or false' }).optional(),
    alertThresholdPercent: z.number().min(1).max(100).optional(),
  }).strict(),
  CONTENT_PUBLISH: z.object({ siteKey, version: version('version') }).loose(),
  CONTENT_DRAFT_UPDATE: z.object({
    siteKey,
    input: z.object({ title: z.string().min(1).optional(), fields: texts.optional(), seo: texts.optional() }, { error: 'input is required: the draft\'s new title, fields or seo' })
      .strict()
      .refine((i) => i.title !== undefined || Object.keys(i.fields ?? {}).length > 0 || Object.keys(i.seo ?? {}).length > 0, 'input must change the title, a field or an seo member'),
    baseVersion: version('baseVersion').optional(),
  }).loose(),
  CRAWL_SELECTOR_CHANGE: z.object({
    selectors: z.record(z.string(), z.string().min(1), { error: 'selectors is required: an object of selector strings' }).refine((s) => Object.keys(s).length > 0, 'selectors must not be empty'),
  }).loose(),
};

/** What is wrong with an action's parameters, in words naming each field; empty when nothing is. */
export function actionParamProblems(kind: ActionKind, params: unknown): string[] {
  return problemsOf(ACTION_PARAMS[kind], params);
}

/** The same, for a proposal: the execution checks and the completeness a reviewer relies on. */
export function proposalParamProblems(kind: ActionKind, params: unknown): string[] {
  return [...problemsOf(ACTION_PARAMS[kind], params), ...problemsOf(PROPOSAL_PARAMS[kind], params)];
}

function problemsOf(schema: z.ZodType | undefined, params: unknown): string[] {
  if (!schema) return [];
  const parsed = schema.safeParse(params);
  return parsed.success ? [] : parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
}
