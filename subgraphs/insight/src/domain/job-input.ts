import { z } from 'zod';
import { JOB_STATUSES, PROMPT_LIMITS } from './job.js';
import { ACTION_STATUSES } from './action.js';

/** A job request: `prompt` 1-8000 characters after trimming; `requesterId` defaults to the token's subject. */
export const jobInputSchema = z
  .object({
    prompt: z
      .string({ error: 'prompt is required and must be a string' })
      .transform((v) => v.trim())
      .pipe(z.string().min(PROMPT_LIMITS.min, 'prompt must not be empty').max(PROMPT_LIMITS.max, `prompt must be at most ${PROMPT_LIMITS.max} characters`)),
    requesterId: z.string().trim().min(1, 'requesterId must not be empty').max(200).optional(),
  })
  .strict();

export type JobInput = z.output<typeof jobInputSchema>;

export const idempotencyKeySchema = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'Idempotency-Key must be 1-200 visible ASCII characters');

export const jobListSchema = z
  .object({
    status: z.enum(JOB_STATUSES).optional(),
    first: z.number().int().min(1).max(100).default(20),
    after: z.string().max(200).optional(),
  })
  .strict();

export const decisionInputSchema = z
  .object({
    reviewedBy: z.string().trim().min(1, 'reviewedBy must not be empty').max(200).optional(),
    comment: z.string().max(4000, 'comment must be at most 4000 characters').optional(),
  })
  .strict();

export const actionListSchema = z
  .object({
    status: z.enum(ACTION_STATUSES).optional(),
    jobId: z.string().uuid('jobId must be a UUID').optional(),
    first: z.number().int().min(1).max(200).default(50),
  })
  .strict();
