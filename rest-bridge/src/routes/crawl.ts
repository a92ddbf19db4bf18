import { crawlExecutionRecordSchema, crawlJobRecordSchema, crawlJobRequestSchema, crawlResultSchema, crawlWebhookDeliverySchema } from '@svc/crawl/contract';
import { jsonSchemaOf } from '@svc/kit';
import type { RouteSpec } from '../route-spec.js';

const jobRecord = jsonSchemaOf(crawlJobRecordSchema, 'output');
const executionRecord = jsonSchemaOf(crawlExecutionRecordSchema, 'output');
const errors = { 401: 'Missing, expired or invalid token', 403: 'The token lacks role crawler or the tenant in X-Svc-Tenant-Id', 404: 'Unknown id, or another tenant\'s' };
const tenantHeader = { tenantId: 'header.x-svc-tenant-id' as const };

export const crawlRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/api/v1/crawl/jobs',
    style: 'crawl',
    operation: 'CreateCrawlJob',
    variables: { input: 'body', ...tenantHeader },
    result: 'createCrawlJob',
    status: 201,
    summary: 'Register a crawl job (periodic by cron, or one-time)',
    description: 'cronExpression has six fields, seconds first (`?` allowed), in UTC. Without it the job runs once, at runAt or at once. selectors.listRow is required; title, publishedAt and link may end in ::text or ::attr(name).',
    tag: 'crawling',
    security: 'bearer',
    body: jsonSchemaOf(crawlJobRequestSchema),
    response: jobRecord,
    errors: { ...errors, 400: 'Malformed body, bad cronExpression or unsupported targetVectorDb', 422: 'Validation failed; errors[] names each field' },
  },
  {
    method: 'POST',
    path: '/api/v1/crawl/jobs/{jobId}/trigger',
    style: 'crawl',
    operation: 'TriggerCrawlJob',
    variables: { jobId: 'path.jobId', ...tenantHeader },
    result: 'triggerCrawlJob',
    status: 200,
    summary: 'Run a job now on a worker',
    description: 'Answers once a worker has locked the run (status RUNNING, allocatedAgent). If none does within SVC_CRAWL_TRIGGER_WAIT_MS: 503, and the run stays queued.',
    tag: 'crawling',
    security: 'bearer',
    response: executionRecord,
    errors: { ...errors, 503: 'No worker took the run in time; it stays queued' },
  },
  {
    method: 'GET',
    path: '/api/v1/crawl/results/{executionId}',
    style: 'crawl',
    operation: 'CrawlResult',
    variables: { executionId: 'path.executionId', ...tenantHeader },
    result: 'crawlResult',
    status: 200,
    summary: 'Items collected by a completed execution',
    tag: 'crawling',
    security: 'bearer',
    response: jsonSchemaOf(crawlResultSchema, 'output'),
    errors: { ...errors, 409: 'The execution is not COMPLETED (its status is in the message)' },
  },
  { method: 'GET', path: '/api/v1/crawl/jobs', style: 'crawl', operation: 'ListCrawlJobs', variables: { ...tenantHeader }, result: 'crawlJobs', status: 200, summary: 'List the tenant\'s crawl jobs, newest first', tag: 'crawling', security: 'bearer', response: { type: 'array', items: jobRecord }, errors },
  { method: 'GET', path: '/api/v1/crawl/jobs/{jobId}', style: 'crawl', operation: 'GetCrawlJob', variables: { jobId: 'path.jobId', ...tenantHeader }, result: 'crawlJob', status: 200, summary: 'One crawl job with its current selectors', tag: 'crawling', security: 'bearer', response: jobRecord, errors },
  { method: 'POST', path: '/api/v1/crawl/jobs/{jobId}/pause', style: 'crawl', operation: 'PauseCrawlJob', variables: { jobId: 'path.jobId', ...tenantHeader }, result: 'pauseCrawlJob', status: 200, summary: 'Pause a job\'s schedule', tag: 'crawling', security: 'bearer', response: jobRecord, errors: { ...errors, 409: 'The job is a finished one-time job' } },
  { method: 'POST', path: '/api/v1/crawl/jobs/{jobId}/resume', style: 'crawl', operation: 'ResumeCrawlJob', variables: { jobId: 'path.jobId', ...tenantHeader }, result: 'resumeCrawlJob', status: 200, summary: 'Resume a paused job', tag: 'crawling', security: 'bearer', response: jobRecord, errors: { ...errors, 409: 'The job is not PAUSED' } },
  { method: 'DELETE', path: '/api/v1/crawl/jobs/{jobId}', style: 'crawl', operation: 'DeleteCrawlJob', variables: { jobId: 'path.jobId', ...tenantHeader }, result: 'deleteCrawlJob', status: 200, summary: 'Delete a job and its schedule', tag: 'crawling', security: 'bearer', response: jobRecord, errors },
  {
    method: 'GET',
    path: '/api/v1/crawl/jobs/{jobId}/webhook-deliveries',
    style: 'crawl',
    operation: 'ListCrawlWebhookDeliveries',
    variables: { jobId: 'path.jobId', status: 'query.status', limit: 'query.limit', ...tenantHeader },
    result: 'crawlWebhookDeliveries',
    status: 200,
    summary: 'A job\'s webhook deliveries, newest first; ?status=FAILED lists the dead letters',
    tag: 'crawling',
    security: 'bearer',
    query: { type: 'object', properties: { status: { type: 'string', enum: ['PENDING', 'DELIVERED', 'FAILED'] }, limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 } } },
    response: { type: 'array', items: jsonSchemaOf(crawlWebhookDeliverySchema, 'output') },
    errors: { ...errors, 400: 'status is not PENDING, DELIVERED or FAILED' },
  },
  { method: 'GET', path: '/api/v1/crawl/jobs/{jobId}/executions', style: 'crawl', operation: 'ListCrawlExecutions', variables: { jobId: 'path.jobId', ...tenantHeader }, result: 'crawlExecutions', status: 200, summary: 'A job\'s executions, newest first', tag: 'crawling', security: 'bearer', response: { type: 'array', items: executionRecord }, errors },
];
