/**
 * The model gateway's REST contract: zod schemas of every request body and query it takes.
 * The service validates with them (chat-request.ts, budget.ts, key-service.ts) and the REST
 * bridge's OpenAPI document is generated from them, so the document cannot drift from the rules.
 * Rules JSON Schema cannot state (a `tool` message needs `tool_call_id`) are refinements here too.
 */
import { z } from 'zod';
import { AGENT_CODE } from './domain/agent-code.js';

/** Largest max_tokens accepted; a deployment's own limit applies on top. */
export const MAX_TOKENS_LIMIT = 128_000;
export const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const must = (text: string) => ({ error: text });
const CONTENT = 'must be a string or an array of content parts';
const PART = 'must be a content part object with a string type';

const contentPart = z
  .object(
    {
      type: z.string(must(PART)),
      text: z.string(must('must be a string')).optional(),
      image_url: z.object({ url: z.string(must('must be a string')), detail: z.enum(['auto', 'low', 'high']).optional() }, must('must be an object with a string url')).loose().optional(),
    },
    must(PART),
  )
  .loose()
  .superRefine((part, ctx) => {
    if (part.type === 'text' && part.text === undefined) ctx.addIssue({ code: 'custom', path: ['text'], message: 'must be a string' });
    if (part.type === 'image_url' && part.image_url === undefined) ctx.addIssue({ code: 'custom', path: ['image_url', 'url'], message: 'must be a string' });
  });

const toolCall = z
  .object(
    {
      id: z.string(must('must be a string')),
      type: z.literal('function').optional(),
      function: z.object({ name: z.string(), arguments: z.string() }, must('must have a string name and string arguments')).loose(),
    },
    must('must be an object with a string id'),
  )
  .loose();

const message = z
  .object(
    {
      role: z.enum(ROLES, must(`must be one of ${ROLES.join(', ')}`)),
      content: z.union([z.string(), z.array(contentPart), z.null()], must(CONTENT)).optional(),
      name: z.string(must('must be a string')).optional(),
      tool_calls: z.array(toolCall, must('must be an array')).nullish(),
      tool_call_id: z.string(must('must be a string')).optional(),
    },
    must('must be an object'),
  )
  .loose()
  .superRefine((m, ctx) => {
    const hasToolCalls = Array.isArray(m.tool_calls);
    if ((m.content === null && m.role !== 'assistant' && !hasToolCalls) || (m.content === undefined && !hasToolCalls)) ctx.addIssue({ code: 'custom', path: ['content'], message: CONTENT });
    if (m.role === 'tool' && m.tool_call_id === undefined) ctx.addIssue({ code: 'custom', path: ['tool_call_id'], message: 'is required for tool messages' });
  });

const tool = z
  .object(
    {
      type: z.literal('function', must('must be "function"')),
      function: z
        .object(
          {
            name: z.string(must('must be 1-64 letters, digits, _ or -')).regex(TOOL_NAME),
            description: z.string().optional(),
            parameters: z.record(z.string(), z.unknown(), must('must be a JSON Schema object')).optional(),
          },
          must('must be {name, description?, parameters?}'),
        )
        .loose(),
    },
    must('must be {type: "function", function: {name, ...}}'),
  )
  .loose();

const toolChoice = z.union(
  [z.enum(['none', 'auto', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string() }).loose() }).loose()],
  must('must be "none", "auto", "required" or {type: "function", function: {name}}'),
);

const tokens = (description: string) => z.number(must(`must be an integer from 1 to ${MAX_TOKENS_LIMIT}`)).int().min(1).max(MAX_TOKENS_LIMIT).nullish().describe(description);

/** POST /v1/chat/completions. Unknown OpenAI parameters are accepted and not sent upstream. */
export const chatRequestSchema = z
  .object(
    {
      model: z.string(must('must be a non-empty string: auto-route, fast-track, deep-reasoning or a model name')).trim().min(1).meta({ examples: ['auto-route', 'fast-track', 'deep-reasoning'] }),
      messages: z.array(message, must('must be a non-empty array')).min(1),
      temperature: z.number(must('must be a number from 0.0 to 2.0')).min(0).max(2).nullish().meta({ default: 0.7 }),
      top_p: z.number(must('must be a number from 0 to 1')).min(0).max(1).nullish(),
      max_tokens: tokens('Largest number of completion tokens (enforced upstream)'),
      max_completion_tokens: tokens('Same as max_tokens; wins when both are given'),
      n: z.literal(1, must('must be 1: this gateway answers one choice per request')).nullish(),
      stream: z.boolean(must('must be a boolean')).nullish().meta({ default: false }),
      stream_options: z.object({ include_usage: z.boolean(must('must be a boolean')).optional() }, must('must be an object')).loose().nullish(),
      stop: z.union([z.string(), z.array(z.string()).max(4)], must('must be a string or an array of up to 4 strings')).nullish(),
      tools: z.array(tool, must('must be an array')).nullish(),
      tool_choice: toolChoice.nullish(),
      svcllm_options: z
        .object({ cacheBypass: z.boolean(must('must be a boolean')).optional().meta({ default: false }), piiStrict: z.boolean(must('must be a boolean')).optional().meta({ default: false }) }, must('must be an object'))
        .loose()
        .nullish(),
    },
    must('must be a JSON object'),
  )
  .loose()
  .meta({ example: { model: 'fast-track', messages: [{ role: 'user', content: 'Summarise our Q3 sales in one sentence.' }] } });

/** Parameters whose refusal carries an OpenAI error code (the rest carry none). */
export const PARAMETER_CODES: Record<string, string> = { n: 'unsupported_parameter' };

/** POST /v1/embeddings. */
export const embeddingRequestSchema = z
  .object(
    {
      model: z.string(must('must be a non-empty string')).trim().min(1),
      input: z.union([z.string(), z.array(z.string()).min(1).max(2048)], must('must be a string or an array of 1 to 2048 strings')),
      encoding_format: z.enum(['float', 'base64'], must('must be "float" or "base64"')).optional(),
      dimensions: z.number(must('must be a whole number from 1 to 8192')).int().min(1).max(8192).nullish(),
      user: z.string().optional(),
    },
    must('must be a JSON object'),
  )
  .loose()
  .meta({ example: { model: 'svc-local-embedding', input: 'quarterly revenue' } });

const agentCode = z.string(must('must be letters, digits, . _ - (at most 64), or a platform agent share <agent>:<tenant>')).regex(AGENT_CODE);

/** POST /admin/v1/budgets (and the setBudget mutation's input). */
export const budgetChangeSchema = z
  .object({
    agentCode,
    monthlyBudgetUsd: z.number(must('must be a number of USD from 0 to 1e9')).min(0).max(1e9),
    hardLimitEnabled: z.boolean(must('must be a boolean')).nullish().meta({ default: false, description: 'Default false: record spending but never block.' }),
    alertWebhookUrl: z.string(must('must be an http(s) URL')).regex(/^https?:\/\/\S+$/).nullish().meta({ format: 'uri', description: 'Called once per period when usage crosses the threshold; checked by the outbound-address guard. null removes it.' }),
    alertThresholdPercent: z.number(must('must be a number above 0 and at most 100')).gt(0).max(100).nullish().meta({ default: 80 }),
  })
  .strict()
  .meta({ example: { agentCode: 'marketing', monthlyBudgetUsd: 250, hardLimitEnabled: true, alertWebhookUrl: 'https://hooks.example.com/budget' } });

/** POST /admin/v1/keys. */
export const apiKeyRequestSchema = z
  .object({
    agentCode,
    name: z.string(must('must be a string')).max(100, must('must be at most 100 characters')).nullish().meta({ description: 'A label; default "default".' }),
  });

const perMinute = (what: string, max: number) => z.number(must(`must be a whole number of ${what} from 1 to ${max}, or null for no limit`)).int().min(1).max(max).nullish();

/** POST /admin/v1/agents/{agentCode}/limits and /admin/v1/keys/{id}/limits: absent members keep their value, null removes the limit. */
export const rateLimitsChangeSchema = z
  .object({
    requestsPerMinute: perMinute('requests', 1e9).meta({ description: 'Requests admitted in any 60 s; null: no limit.' }),
    tokensPerMinute: perMinute('tokens', 1e12).meta({ description: 'Prompt + completion tokens in any 60 s (an estimate held until the request ends); null: no limit.' }),
    maxConcurrent: perMinute('requests in flight', 1e6).meta({ description: 'Requests in flight at once; null: no limit.' }),
  }, must('must be a JSON object'))
  .strict()
  .meta({ example: { requestsPerMinute: 600, tokensPerMinute: 200000, maxConcurrent: 20 } });

/** GET /admin/v1/keys. */
export const apiKeyListQuerySchema = z.object({ agentCode: agentCode.optional() });

/** GET /admin/v1/usage. */
export const usageQuerySchema = z.object({
  agentCode: agentCode.optional(),
  from: z.string().meta({ format: 'date', description: 'ISO 8601 date or time, inclusive; default the start of this month (UTC)' }).optional(),
  to: z.string().meta({ format: 'date', description: 'ISO 8601 date or time, exclusive; default now' }).optional(),
});

// Payloads, for the OpenAPI document; the fuzz suite checks every success against them (every
// member present, of its type). Completions and chunks follow OpenAI's shapes.
const time = z.string().meta({ format: 'date-time' });
const usage = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }).loose();

export const chatCompletionSchema = z
  .object({
    id: z.string(), object: z.literal('chat.completion'), created: z.number().int(), model: z.string(),
    choices: z.array(z.object({ index: z.number().int(), message: z.object({ role: z.literal('assistant'), content: z.string().nullable() }).loose(), finish_reason: z.string().nullable() }).loose()),
    usage,
  })
  .loose();
export const embeddingListSchema = z
  .object({
    object: z.literal('list'), model: z.string(),
    data: z.array(z.object({ object: z.literal('embedding'), index: z.number().int(), embedding: z.union([z.array(z.number()), z.string()]) }).loose()),
    usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }).loose(),
  })
  .loose();
export const modelSchema = z.object({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }).loose();
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelSchema) }).loose();
const budgetRecord = z
  .object({
    agentCode: z.string(), period: z.literal('MONTHLY'), allocatedUsd: z.number(), currentUsageUsd: z.number(), burnRatePercent: z.number(), alertThresholdPercent: z.number(),
    status: z.enum(['HEALTHY', 'WARNING_THRESHOLD_EXCEEDED']),
    tenantId: z.string().nullable().meta({ description: "The tenant the agent belongs to (or, for a platform agent's share <agent>:<tenant>, is charged for); null for the platform's own." }),
    managedBy: z.enum(['TENANT', 'PLATFORM']).meta({ description: "TENANT: the tenant's admins manage it. PLATFORM: the master key and platform admins only." }),
  })
  .loose();
export const budgetListSchema = z.object({ budgets: z.array(budgetRecord) }).loose();
export const budgetSetSchema = z.object({ budget: budgetRecord.extend({ hardLimitEnabled: z.boolean(), alertWebhookUrl: z.string().nullable() }) }).loose();
export const createdKeySchema = z.object({ id: z.string(), key: z.string(), agentCode: z.string(), name: z.string(), keyPrefix: z.string(), createdAt: time }).loose();
const limitsRecord = z.object({ requestsPerMinute: z.number().int().nullable(), tokensPerMinute: z.number().int().nullable(), maxConcurrent: z.number().int().nullable() }).loose();
export const keyListSchema = z.object({ keys: z.array(z.object({ id: z.string(), agentCode: z.string(), name: z.string(), keyPrefix: z.string(), createdAt: time, lastUsedAt: time.nullable(), revokedAt: time.nullable(), limits: limitsRecord }).loose()) }).loose();
export const limitsSetSchema = z.object({ limits: limitsRecord }).loose();
export const revokedKeySchema = z.object({ id: z.string(), agentCode: z.string(), name: z.string(), keyPrefix: z.string(), revokedAt: time.nullable() }).loose();
export const usageListSchema = z
  .object({ usage: z.array(z.object({ agentCode: z.string(), model: z.string(), day: z.string().meta({ format: 'date' }), requests: z.number().int(), promptTokens: z.number().int(), completionTokens: z.number().int(), costUsd: z.number(), cacheHits: z.number().int() }).loose()) })
  .loose();
