/**
 * The analysis service's REST contract: zod schemas of the request bodies and queries it takes.
 * The service validates with them (jobs.ts, actions.ts, metrics, account-service.ts) and the REST
 * bridge's OpenAPI document is generated from them, so the document cannot drift from the rules.
 */
import { z } from 'zod';

export { actionListSchema, decisionInputSchema, idempotencyKeySchema, jobInputSchema, jobListSchema } from './domain/job-input.js';
export { ingestInputSchema } from './domain/metric-input.js';

/** POST /api/v1/auth/token. A wrong pair is a 401; a missing or over-long member a 400. */
export const tokenRequestSchema = z
  .object({
    username: z.string().min(1, 'username is required').max(200, 'username must be at most 200 characters'),
    password: z.string().min(1, 'password is required').max(1024, 'password must be at most 1024 characters'),
  })
  .meta({ example: { username: 'admin', password: 'change-me' } });
