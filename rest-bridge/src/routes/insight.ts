import { actionListSchema, decisionInputSchema, ingestInputSchema, jobInputSchema, jobListSchema } from '@svc/insight/contract';
import { jsonSchemaOf } from '@svc/kit';
import type { JsonSchema, RouteSpec } from '../route-spec.js';

const s = { type: 'string' };
const ns = { type: ['string', 'null'] };
const time = { type: 'string', format: 'date-time' };
const nullableTime = { type: ['string', 'null'], format: 'date-time' };
const uuid = { type: 'string', format: 'uuid' };
const jobStatus = { type: 'string', enum: ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] };
const actionStatus = { type: 'string', enum: ['PROPOSED', 'APPROVED', 'REJECTED', 'EXPIRED', 'EXECUTED', 'EXECUTION_FAILED'] };

const jobSummary: JsonSchema = {
  type: 'object',
  properties: {
    jobId: uuid, status: jobStatus, prompt: s, requesterId: s, createdAt: time, startedAt: nullableTime, finishedAt: nullableTime, error: ns,
    progress: { type: 'object', properties: { stepsDone: { type: 'integer' }, currentStep: ns } },
  },
};
const action: JsonSchema = {
  type: 'object',
  properties: {
    actionId: uuid, jobId: uuid,
    kind: { type: 'string', enum: ['BUDGET_CHANGE', 'CONTENT_DRAFT_UPDATE', 'CONTENT_PUBLISH', 'CRAWL_TRIGGER', 'CRAWL_SELECTOR_CHANGE'] },
    title: s, rationale: s, targetType: { type: 'string', enum: ['Agent', 'Content', 'CrawlJob'] }, targetId: s,
    params: { type: 'object' }, paramsHash: s, status: actionStatus, proposedAt: time, expiresAt: time,
    expectedImpact: { type: ['object', 'null'], properties: { metric: s, horizon: { type: 'integer' }, p10: { type: 'number' }, p50: { type: 'number' }, p90: { type: 'number' } } },
    decision: { type: ['object', 'null'], properties: { reviewedBy: s, reviewerSubject: s, comment: ns, decidedAt: time } },
    outcome: { type: ['object', 'null'] }, executedAt: nullableTime,
  },
};
const job: JsonSchema = {
  type: 'object',
  properties: {
    ...(jobSummary.properties as Record<string, unknown>),
    tokens: { type: 'integer' }, costUsd: { type: 'number' },
    steps: { type: 'array', items: { type: 'object', properties: { seq: { type: 'integer' }, kind: { type: 'string', enum: ['PLAN', 'TOOL_CALL', 'TOOL_RESULT', 'OBSERVATION', 'REPORT', 'STATUS'] }, title: s, detail: ns, toolName: ns, toolArgs: { type: ['object', 'null'] }, resultSummary: ns, status: ns } } },
    report: { type: ['object', 'null'], properties: { judgment: s, judgmentSource: s, confidence: { type: 'number' }, confidenceReason: s, findings: { type: 'array' }, evidence: { type: 'array' }, charts: { type: 'array' } } },
    actions: { type: 'array', items: action },
  },
};
const decision: JsonSchema = { ...jsonSchemaOf(decisionInputSchema), example: { reviewedBy: 'reviewer-01', comment: 'Approved for the campaign.' } };
const auth = { 401: 'Missing, expired or invalid token', 403: 'The token lacks the role' };
const common = { style: 'insight' as const, tag: 'analysis', security: 'bearer' as const };

export const insightRoutes: RouteSpec[] = [
  {
    ...common,
    method: 'POST',
    path: '/api/v1/insight/jobs',
    operation: 'CreateInsightJob',
    variables: { input: 'body', idempotencyKey: 'header.idempotency-key' },
    result: 'createInsightJob',
    status: 202,
    message: 'Accepted',
    summary: 'Start an analysis job',
    description: 'Answers at once with the job PENDING; a worker runs it. Role analyst. prompt: 1-8000 characters after trimming; requesterId defaults to the token\'s subject. An Idempotency-Key header returns the same job for a repeated request. Follow it with GET /api/v1/insight/jobs/{jobId}/events.',
    body: { ...jsonSchemaOf(jobInputSchema), example: { prompt: 'Why did revenue drop last week? What if we increase search ad spend by 20%?', requesterId: 'analyst-01' } },
    response: { type: 'object', properties: { jobId: uuid, status: jobStatus, createdAt: time } },
    errors: { ...auth, 400: 'Malformed body', 422: 'prompt missing, empty or too long; errors[] names the field' },
  },
  {
    ...common,
    method: 'GET',
    path: '/api/v1/insight/jobs',
    operation: 'ListInsightJobs',
    variables: { status: 'query.status', first: 'query.first', after: 'query.after' },
    integers: ['first'],
    query: jsonSchemaOf(jobListSchema),
    result: 'insightJobs',
    status: 200,
    summary: 'List analysis jobs, newest first',
    description: 'Your jobs (every job for reviewers and admins). first: 1-100 (default 20); pass nextCursor as after for the next page; status filters.',
    response: { type: 'object', properties: { jobs: { type: 'array', items: jobSummary }, nextCursor: ns } },
    errors: { ...auth, 422: 'Bad status, first or after' },
  },
  {
    ...common,
    method: 'GET',
    path: '/api/v1/insight/jobs/{jobId}',
    operation: 'GetInsightJob',
    variables: { jobId: 'path.jobId' },
    result: 'insightJob',
    status: 200,
    summary: 'An analysis job: status, progress, steps, report and proposed actions',
    response: job,
    errors: { ...auth, 404: 'No such job, or not yours' },
  },
  {
    ...common,
    method: 'GET',
    path: '/api/v1/insight/jobs/{jobId}/events',
    operation: 'InsightJobEvents',
    variables: { jobId: 'path.jobId' },
    result: 'insightJob',
    status: 200,
    summary: 'Server-Sent Events of a job\'s steps as they are written',
    description: 'One `step` event per step (id = step number, data = the step as JSON), ending after the final STATUS step. Reconnect with Last-Event-ID to get only the steps after it.',
    events: { service: 'insight', path: '/events/jobs/{jobId}' },
    response: { type: 'string', description: 'text/event-stream' },
    errors: { ...auth, 404: 'No such job, or not yours' },
  },
  {
    ...common,
    method: 'POST',
    path: '/api/v1/insight/jobs/{jobId}/cancel',
    operation: 'CancelInsightJob',
    variables: { jobId: 'path.jobId' },
    result: 'cancelInsightJob',
    status: 200,
    summary: 'Cancel a job (PENDING at once, RUNNING at its next step)',
    response: jobSummary,
    errors: { ...auth, 404: 'No such job, or not yours', 409: 'The job has already ended' },
  },
  {
    ...common,
    method: 'POST',
    path: '/api/v1/insight/actions/{actionId}/approve',
    operation: 'ApproveAction',
    variables: { actionId: 'path.actionId', reviewedBy: 'body.reviewedBy', comment: 'body.comment' },
    result: 'approveAction',
    status: 200,
    summary: 'Approve a proposed action (it is then executed once by a worker)',
    description: 'Role reviewer. One decision per action: a second decision, or one on an expired action, is 409 naming the current status and changes nothing.',
    body: decision,
    response: action,
    errors: { ...auth, 404: 'No such action', 409: 'Already decided, expired, or its parameters changed', 422: 'Validation failed (reviewedBy or comment); errors[] names each field' },
  },
  {
    ...common,
    method: 'POST',
    path: '/api/v1/insight/actions/{actionId}/reject',
    operation: 'RejectAction',
    variables: { actionId: 'path.actionId', reviewedBy: 'body.reviewedBy', comment: 'body.comment' },
    result: 'rejectAction',
    status: 200,
    summary: 'Reject a proposed action',
    body: decision,
    response: action,
    errors: { ...auth, 404: 'No such action', 409: 'Already decided or expired', 422: 'Validation failed (reviewedBy or comment); errors[] names each field' },
  },
  {
    ...common,
    method: 'GET',
    path: '/api/v1/insight/actions',
    operation: 'ListActions',
    variables: { status: 'query.status', jobId: 'query.jobId', first: 'query.first' },
    integers: ['first'],
    query: jsonSchemaOf(actionListSchema),
    result: 'actionProposals',
    status: 200,
    summary: 'List proposed actions, newest first (filter by status and job)',
    response: { type: 'array', items: action },
    errors: { ...auth, 422: 'Bad status, jobId or first' },
  },
  {
    ...common,
    method: 'GET',
    path: '/api/v1/insight/actions/{actionId}',
    operation: 'GetAction',
    variables: { actionId: 'path.actionId' },
    result: 'actionProposal',
    status: 200,
    summary: 'A proposed action with its decision and outcome',
    response: action,
    errors: { ...auth, 404: 'No such action' },
  },
  {
    ...common,
    method: 'POST',
    path: '/api/v1/insight/metrics',
    operation: 'IngestMetrics',
    variables: { input: 'body' },
    result: 'ingestMetrics',
    status: 200,
    summary: 'Ingest metric points',
    description: 'Role analyst. Series are identified by name and labels; timestamps ISO 8601 (strictly increasing per series), values finite. At most 100 series and 50,000 points per request; a point at an existing time replaces it. All or nothing.',
    body: { ...jsonSchemaOf(ingestInputSchema), example: { series: [{ name: 'revenue', labels: { region: 'eu' }, unit: 'USD', points: [{ timestamp: '2026-11-01T00:00:00Z', value: 1234.5 }] }] } },
    response: { type: 'object', properties: { series: { type: 'integer' }, points: { type: 'integer' } } },
    errors: { ...auth, 400: 'Malformed body', 422: 'A bad name, label, timestamp or value; errors[] names each' },
  },
];
