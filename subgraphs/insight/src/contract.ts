/**
 * The analysis service's REST contract: zod schemas of the request bodies and queries it takes.
 * The service validates with them (jobs.ts, actions.ts, metrics, account-service.ts) and the REST
 * bridge's OpenAPI document is generated from them, so the document cannot drift from the rules.
 */
import { z } from 'zod';
import { ACTION_KINDS, ACTION_STATUSES, type ActionKind, type TargetType } from './domain/action.js';
import { JOB_STATUSES, STEP_KINDS } from './domain/job.js';

export { settingsInputSchema } from './domain/settings-input.js';
export { actionListSchema, decisionInputSchema, idempotencyKeySchema, jobInputSchema, jobListSchema } from './domain/job-input.js';
export { ingestInputSchema } from './domain/metric-input.js';
export { metricDefinitionSchema } from './domain/metric-definition.js';
export { eventInputSchema, eventListSchema } from './domain/timeline-event.js';
export { accountInputSchema, accountUpdateSchema, ownPasswordInputSchema, passwordInputSchema } from './domain/account.js';

/** POST /api/v1/auth/token. A wrong pair is a 401; a missing or over-long member a 400. */
export const tokenRequestSchema = z
  .object({
    username: z.string().min(1, 'username is required').max(200, 'username must be at most 200 characters'),
    password: z.string().min(1, 'password is required').max(1024, 'password must be at most 1024 characters'),
  })
  .meta({ example: { username: 'admin', password: 'change-me' } });

// Payloads (the `data` of the analysis envelope), for the OpenAPI document; the fuzz suite checks
// every success against them (every member present, of its type).
const time = z.string().meta({ format: 'date-time' });
const nullableText = z.string().nullable();
const ACTION_TYPES = Object.keys(ACTION_KINDS) as ActionKind[];
const TARGET_TYPES = [...new Set(Object.values(ACTION_KINDS).map((k) => k.target))] as TargetType[];

export const tokenPayloadSchema = z.object({ accessToken: z.string(), tokenType: z.literal('Bearer'), expiresIn: z.number().int() }).loose();
export const jobAcceptedSchema = z.object({ jobId: z.uuid(), status: z.enum(JOB_STATUSES), createdAt: time }).loose();
export const jobSummarySchema = z
  .object({
    jobId: z.uuid(), status: z.enum(JOB_STATUSES), prompt: z.string(), requesterId: z.string(), createdAt: time, startedAt: time.nullable(), finishedAt: time.nullable(), error: nullableText,
    progress: z.object({ stepsDone: z.number().int(), currentStep: nullableText }).loose(),
  })
  .loose();
export const jobPageSchema = z.object({ jobs: z.array(jobSummarySchema), nextCursor: nullableText }).loose();
export const actionSchema = z
  .object({
    actionId: z.uuid(), jobId: z.uuid(),
    kind: z.enum(ACTION_TYPES),
    title: z.string(), rationale: z.string(), targetType: z.enum(TARGET_TYPES), targetId: z.string(),
    targetName: nullableText.meta({ description: 'The target in the report\'s words, for a person (an external lever in the catalog\'s words, a page by its title); null when the analysis read nothing that names it. Kept when the target is gone: its last known name.' }),
    targetGoneAt: time.nullable().meta({ description: 'When the service learned the target no longer exists (it asks when a proposal is read, at most every 30 s, and when it is approved); the proposal then EXPIRED and cannot be approved (409). Null while it is not known to be gone.' }),
    params: z.record(z.string(), z.unknown()), paramsHash: z.string(), status: z.enum(ACTION_STATUSES), proposedAt: time, expiresAt: time,
    expectedImpact: z
      .object({ metric: z.string(), horizon: z.number().int(), p10: z.number(), p50: z.number(), p90: z.number(), method: nullableText.optional(), horizonDays: z.number().int().nullable().optional(), unit: nullableText.optional() })
      .loose()
      .nullable(),
    undoable: z.boolean(), undo: z.string(),
    finding: z.object({ index: z.number().int(), title: z.string(), detail: z.string() }).loose().nullable().meta({ description: 'The report finding the proposal follows from.' }),
    decision: z.object({ reviewedBy: z.string(), reviewerSubject: z.string(), comment: nullableText, decidedAt: time }).loose().nullable(),
    outcome: z.record(z.string(), z.unknown()).nullable(), executedAt: time.nullable(),
  })
  .loose();
const tablePeriod = z.object({ from: z.string(), to: z.string(), text: z.string() }).loose();
/** The drill-down of a change through the subject's labels: segments by contribution, then the unexplained rest (`report.segmentTables`). */
export const segmentTableSchema = z
  .object({
    title: z.string(), step: z.number().int(), metric: z.string(), unit: nullableText,
    method: z.string().meta({ description: 'localization (the smallest set of label combinations that explains the change; reports written before it say adtributor, adtributor+drill-down or combination-search)' }),
    values: z.enum(['TOTAL', 'RATIO']).meta({ description: "before and after are each segment's total, or its own ratio" }),
    period: tablePeriod, comparison: tablePeriod, change: z.number(), changeText: z.string(),
    rows: z.array(z.object({
      kind: z.enum(['SEGMENT', 'REMAINDER']), label: z.string(), labels: z.record(z.string(), z.string()),
      before: z.number().nullable(), after: z.number().nullable(), contribution: z.number(), share: z.number(),
      explanatoryPower: z.number().nullable(), surprise: z.number().nullable(),
      text: z.object({ before: nullableText, after: nullableText, contribution: z.string(), share: z.string(), explanatoryPower: nullableText, surprise: nullableText }).loose(),
    }).loose()),
  })
  .loose();
export const jobSchema = jobSummarySchema
  .extend({
    tokens: z.number().int(), costUsd: z.number(),
    steps: z.array(z.object({ seq: z.number().int(), kind: z.enum(STEP_KINDS), title: z.string(), detail: nullableText, toolName: nullableText, toolArgs: z.record(z.string(), z.unknown()).nullable(), resultSummary: nullableText, status: nullableText }).loose()),
    report: z.object({ judgment: z.string(), judgmentSource: z.string(), confidence: z.number(), confidenceReason: z.string(), findings: z.array(z.unknown()), evidence: z.array(z.unknown()), charts: z.array(z.unknown()), segmentTables: z.array(segmentTableSchema) }).loose().nullable(),
    actions: z.array(actionSchema),
  })
  .loose();
/** A tenant's analysis settings (`/api/v1/insight/settings`); the webhook secret is never returned. */
export const settingsSchema = z
  .object({ tenantId: z.string(), operatorWebhookUrl: nullableText, operatorWebhookSecretSet: z.boolean(), updatedBy: nullableText, updatedAt: time.nullable() })
  .loose();
/** An account in the admin API (`/api/v1/admin/users`); `["*"]` grants every tenant or site. */
export const accountSchema = z
  .object({
    username: z.string(), roles: z.array(z.string()), tenants: z.array(z.string()), sites: z.array(z.string()), disabled: z.boolean(),
    createdBy: nullableText, createdAt: time, updatedAt: time, sessionsEndedAt: time.nullable(),
  })
  .loose();
export const ingestResultSchema = z.object({ series: z.number().int(), points: z.number().int() }).loose();
/** POST /api/v1/insight/metrics/import: what the file held (distinct series and points, records read) and how long it took. */
export const importResultSchema = ingestResultSchema.extend({ lines: z.number().int(), seconds: z.number() }).loose();
export const definitionRecordSchema = z.object({ name: z.string(), definition: z.record(z.string(), z.unknown()), updatedAt: time, updatedBy: z.string() }).loose();
export const eventRecordSchema = z.object({ id: z.string(), at: time, kind: z.string(), title: z.string(), ref: nullableText, source: z.enum(['tenant', 'platform']) }).loose();
