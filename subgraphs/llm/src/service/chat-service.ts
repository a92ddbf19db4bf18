import { randomUUID } from 'node:crypto';
import type { Cache, Logger } from '@svc/kit';
import type { Reservation } from '../domain/budget.js';
import { chatCacheKey } from '../domain/cache-key.js';
import { parseChatRequest, type ChatRequest } from './chat-request.js';
import { costUsd, worstCaseUsd } from '../domain/cost.js';
import { UpstreamError, textOf, type ChatCompletion, type ChatCompletionChunk, type ChatMessage, type Usage, type UpstreamChatRequest } from '../domain/openai-types.js';
import { createPiiVault, createStreamUnmasker, type PiiVault } from '../domain/pii/index.js';
import { promptTokenBound } from '../domain/prompt-bound.js';
import { trustedUsage } from '../domain/usage.js';
import { upstreamFailure, type Deployment, type ModelRouter } from '../routing/model-router.js';
import type { AgentCaller } from '../domain/api-key.js';
import { estimateTextTokens, heldPromptTokens } from '../domain/tokens.js';
import type { BudgetService } from './budget-service.js';
import { maskOrFail, unmaskCompletion } from './chat-pii.js';
import { openUntilFirstToken, replay, textOfChunk, type OpenedStream } from './chat-stream.js';
import type { GatewayMetrics } from './metrics.js';
import { withDeadline } from './deadline.js';
import { limitScopes, type RateLimiter, type RateTicket, type ResponseMeta } from './rate-limiter.js';

export type CacheStatus = 'HIT' | 'MISS' | 'BYPASS';

export interface ChatOutcome {
  completion: ChatCompletion;
  /** The deployment that answered (also in `completion.model`). */
  model: string;
  cacheStatus: CacheStatus;
  routeReason?: string;
}

export interface StreamSession {
  model: string;
  cacheStatus: CacheStatus;
  /** Chunks to send; ends after the last chunk (usage chunk included). Throws mid-stream on upstream failure. */
  chunks: AsyncIterable<ChatCompletionChunk>;
}

export interface ChatServiceDeps {
  router: ModelRouter;
  budgets: BudgetService;
  cache: Cache;
  cacheTtlSeconds: number;
  metrics: GatewayMetrics;
  limiter: RateLimiter;
  log: Logger;
}

/** The longest one upstream attempt at a whole (not streamed) answer may take, whatever the provider's own timeout, ms. */
const ANSWER_DEADLINE_MS = 10 * 60_000;

/** A completion id unique to one answer (OpenAI's shape: `chatcmpl-` and a random suffix). */
const completionId = () => `chatcmpl-${randomUUID().replace(/-/g, '')}`;

/** The answer as this response: its own id and the current time (a cache hit is a new answer too). */
const fresh = (completion: ChatCompletion): ChatCompletion => ({ ...completion, id: completionId(), created: Math.floor(Date.now() / 1000) });

export function createChatService(deps: ChatServiceDeps) {
  const { router, budgets, cache, metrics, limiter, log } = deps;

  interface Prepared {
    request: ChatRequest;
    routeReason?: string;
    targets: Deployment[];
    messages: ChatMessage[];
    vault?: PiiVault;
    /** Where the answer is cached: the key itself, or (cacheBypass) how to compute it when the answer is stored. */
    cacheKey?: string | (() => string);
    cacheStatus: CacheStatus;
    cached?: ChatCompletion;
    /** The prompt's upper bound (prompt-bound.ts), computed once: see {@link promptBound}. */
    bound?: number;
  }

  /** The most prompt tokens the request can be billed: what the budget and the rate limits hold, and the charge without trusted usage. */
  const promptBound = (p: Prepared): number => (p.bound ??= promptTokenBound(p.messages, p.request.tools));

  async function prepare(agentCode: string, body: unknown): Promise<Prepared> {
    const request = parseChatRequest(body);
    const route = router.routeChat(request.model, request.messages, request.tools);
    const vault = request.piiStrict ? createPiiVault() : undefined;
    const messages = vault ? maskOrFail(request.messages, vault) : request.messages;
    // piiStrict answers are never cached: they would have to be stored unmasked.
    if (request.piiStrict) return { request, routeReason: route.reason, targets: route.targets, messages, vault, cacheStatus: 'BYPASS' };
    // Nothing is read for cacheBypass: its key is hashed when the answer is stored, after the answer went out.
    if (request.cacheBypass) return { request, routeReason: route.reason, targets: route.targets, messages, cacheKey: () => chatCacheKey(agentCode, request), cacheStatus: 'BYPASS' };
    const cacheKey = chatCacheKey(agentCode, request);
    const hit = await cache.get(cacheKey).catch((error: unknown) => {
      log.warn({ err: error }, 'response cache read failed; calling upstream');
      return undefined;
    });
    return { request, routeReason: route.reason, targets: route.targets, messages, cacheKey, cacheStatus: hit ? 'HIT' : 'MISS', cached: hit ? (JSON.parse(hit) as ChatCompletion) : undefined };
  }

  function upstreamRequest(p: Prepared, d: Deployment): UpstreamChatRequest {
    return {
      model: d.model,
      messages: p.messages,
      temperature: p.request.temperature,
      max_tokens: maxOutput(p, d),
      ...(p.request.top_p !== undefined ? { top_p: p.request.top_p } : {}),
      ...(p.request.stop !== undefined ? { stop: p.request.stop } : {}),
      ...(p.request.tools && d.supportsTools ? { tools: p.request.tools, ...(p.request.tool_choice !== undefined ? { tool_choice: p.request.tool_choice } : {}) } : {}),
      include_usage: true,
    };
  }

  /**
   * Admits the request under its key's and agent's rate limits: a cache hit needs no tokens; a
   * call upstream holds its prompt's tokens (`heldPromptTokens`) plus its output limit until it ends (OpenAI counts so too).
   */
  function admit(caller: AgentCaller, p: Prepared, meta?: ResponseMeta): Promise<RateTicket> {
    const tokens = () => (p.cached ? 0 : heldPromptTokens(promptBound(p), p.messages, p.request.tools) + Math.max(...p.targets.map((d) => maxOutput(p, d))));
    return limiter.admit(limitScopes(caller), tokens, meta);
  }

  /** The budget's hold, after the rate limits admitted the request (a refusal frees its place there). */
  async function reserveAdmitted(agentCode: string, p: Prepared, ticket: RateTicket, requestId?: string): Promise<Reservation> {
    try {
      return await reserveFor(agentCode, p, requestId);
    } catch (error) {
      ticket.settle(0);
      throw error;
    }
  }

  async function reserveFor(agentCode: string, p: Prepared, requestId?: string): Promise<Reservation> {
    const maxOut = Math.max(...p.targets.map((d) => maxOutput(p, d)));
    const amount = worstCaseUsd(promptBound(p), maxOut, p.targets.map((d) => d.price));
    return budgets.reserve(agentCode, amount, requestId);
  }

  async function storeInCache(p: Prepared, completion: ChatCompletion): Promise<void> {
    if (!p.cacheKey || deps.cacheTtlSeconds <= 0) return;
    const key = typeof p.cacheKey === 'function' ? p.cacheKey() : p.cacheKey;
    await cache.set(key, JSON.stringify(completion), deps.cacheTtlSeconds).catch((error: unknown) => log.warn({ err: error }, 'response cache write failed'));
  }

  function recordHit(agentCode: string, p: Prepared, requestId?: string): void {
    metrics.cacheHit(agentCode);
    budgets.record(agentCode, { kind: 'chat', requestedModel: p.request.model, model: p.cached!.model, promptTokens: 0, completionTokens: 0, costUsd: 0, cached: true, outcome: 'ok', requestId });
  }

  /** The most output tokens deployment `d` may bill for this request: what it is asked for and reserved. */
  const maxOutput = (p: Prepared, d: Deployment) => Math.min(p.request.max_tokens ?? d.maxOutputTokens, d.maxOutputTokens);

  /**
   * What to charge: the upstream's usage when it is trustworthy (non-negative whole numbers);
   * otherwise (missing, negative, fractional, or a stream cut short) the bounds the reservation
   * used: the prompt's worst case and one token per byte of what was generated, at most the
   * output limit. Over-charging is possible, under-charging is not.
   */
  function usageOr(usage: Usage | undefined | null, p: Prepared, d: Deployment, generated: string): Usage {
    const trusted = trustedUsage(usage);
    if (trusted) return trusted;
    const prompt = promptBound(p);
    const completion = Math.min(Buffer.byteLength(generated), maxOutput(p, d));
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }

  /**
   * The usage of a stream cut short: the prompt's bound (the upstream read it all) and the
   * tokens of what the client received (o200k count, at most the output limit), never the
   * reservation's worst case.
   */
  function deliveredUsage(p: Prepared, d: Deployment, delivered: string): Usage {
    const prompt = promptBound(p);
    const completion = Math.min(estimateTextTokens(delivered), maxOutput(p, d));
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }

  async function fail(agentCode: string, reservation: Reservation, ticket: RateTicket, p: Prepared, error: unknown, requestId?: string): Promise<never> {
    ticket.settle(0);
    budgets.release(reservation, { kind: 'chat', requestedModel: p.request.model, promptTokens: 0, completionTokens: 0, costUsd: 0, cached: false, outcome: 'error', requestId });
    metrics.request(agentCode, p.request.model, 'error');
    if (error instanceof UpstreamError) throw upstreamFailure(error);
    throw error;
  }

  return {
    async complete(caller: AgentCaller, body: unknown, requestId?: string, meta?: ResponseMeta): Promise<ChatOutcome> {
      const started = performance.now();
      const { agentCode } = caller;
      const p = await prepare(agentCode, body);
      const ticket = await admit(caller, p, meta);
      if (p.cached) {
        ticket.settle(0);
        recordHit(agentCode, p, requestId);
        return { completion: fresh(p.cached), model: p.cached.model, cacheStatus: 'HIT', routeReason: p.routeReason };
      }
      const reservation = await reserveAdmitted(agentCode, p, ticket, requestId);
      let answered: { result: ChatCompletion; deployment: Deployment };
      try {
        answered = await router.withFallback(p.targets, (d) => withDeadline(ANSWER_DEADLINE_MS, (signal) => d.provider.chat(upstreamRequest(p, d), signal)), (d, e) => {
          metrics.fallback(d.name);
          log.warn({ deployment: d.name, status: e.status, err: e.message }, 'deployment failed; trying the next');
        });
      } catch (error) {
        return fail(agentCode, reservation, ticket, p, error, requestId);
      }
      const { result, deployment } = answered;
      const message = result.choices[0]?.message;
      const usage = usageOr(result.usage, p, deployment, textOf(message?.content ?? null) + (message?.tool_calls ? JSON.stringify(message.tool_calls) : ''));
      const seconds = (performance.now() - started) / 1000;
      const completion: ChatCompletion = { ...fresh(result), model: deployment.name, usage };
      // What follows the answer does not hold it back: settling the rate-limit ticket and the
      // budget hold, the metrics and the cache write run once the answer has been written, in
      // this turn of the event loop (so before any later request is handled, and the ticket's
      // settlement leaves with the turn's other Redis writes).
      setImmediate(() => {
        try {
          const cost = costUsd(usage.prompt_tokens, usage.completion_tokens, deployment.price);
          ticket.settle(usage.prompt_tokens + usage.completion_tokens);
          budgets.settle(reservation, { kind: 'chat', requestedModel: p.request.model, model: deployment.name, deployment: deployment.providerName, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, costUsd: cost, cached: false, outcome: 'ok', requestId });
          metrics.completed(agentCode, deployment.name, usage, cost, seconds);
        } catch (error) {
          log.error({ err: error, agentCode, requestId }, 'could not settle an answered request');
        }
        // Cache write failures are logged and ignored.
        if (!p.vault) void storeInCache(p, completion);
      });
      return { completion: p.vault ? unmaskCompletion(completion, p.vault) : completion, model: deployment.name, cacheStatus: p.cacheStatus, routeReason: p.routeReason };
    },

    /**
     * Opens a stream: routing, reservation and the first upstream chunk happen before it
     * returns (so early failures are ordinary errors, and fallback still works). The charge
     * settles when the stream ends, fails, or the caller goes away (`signal`): then what was
     * generated so far is charged.
     */
    async openStream(caller: AgentCaller, body: unknown, signal: AbortSignal, requestId?: string, meta?: ResponseMeta): Promise<StreamSession> {
      const started = performance.now();
      const { agentCode } = caller;
      const p = await prepare(agentCode, body);
      const ticket = await admit(caller, p, meta);
      if (p.cached) {
        ticket.settle(0);
        recordHit(agentCode, p, requestId);
        return { model: p.cached.model, cacheStatus: 'HIT', chunks: replay(fresh(p.cached), p.request.include_usage) };
      }
      const reservation = await reserveAdmitted(agentCode, p, ticket, requestId);
      let opened: { result: OpenedStream; deployment: Deployment };
      try {
        opened = await router.withFallback(p.targets, (d) => openUntilFirstToken(d.provider.chatStream(upstreamRequest(p, d), signal)), (d, e) => {
          metrics.fallback(d.name);
          log.warn({ deployment: d.name, status: e.status, err: e.message }, 'stream failed before its first token; trying the next deployment');
        });
      } catch (error) {
        return fail(agentCode, reservation, ticket, p, error, requestId);
      }
      const { deployment } = opened;
      const { head, rest } = opened.result;
      const unmasker = p.vault ? createStreamUnmasker(p.vault) : undefined;

      async function* run(): AsyncGenerator<ChatCompletionChunk> {
        let text = '';
        /** Content and tool-call text the client has received. */
        let delivered = '';
        let usage: Usage | undefined;
        let finish: ChatCompletion['choices'][number]['finish_reason'] = null;
        let outcome: 'ok' | 'error' | 'aborted' = 'aborted';
        let failure: string | undefined;
        // Every answer gets the gateway's own id and the real time, whatever the provider sent.
        const id = completionId();
        const created = Math.floor(Date.now() / 1000);
        const toolCalls: NonNullable<ChatCompletion['choices'][number]['message']['tool_calls']> = [];
        try {
          let step: IteratorResult<ChatCompletionChunk> = head.length ? { done: false, value: head.shift()! } : await rest.next();
          while (!step.done) {
            const chunk = step.value;
            if (chunk.usage) usage = chunk.usage;
            const out: ChatCompletionChunk = { ...chunk, id, created, model: deployment.name, choices: chunk.choices.map((c) => ({ ...c, delta: { ...c.delta } })) };
            for (const choice of out.choices) {
              if (typeof choice.delta.content === 'string') {
                text += choice.delta.content;
                if (unmasker) choice.delta.content = unmasker.push(choice.delta.content);
              }
              for (const call of choice.delta.tool_calls ?? []) {
                const slot = (toolCalls[call.index] ??= { id: call.id ?? '', type: 'function', function: { name: '', arguments: '' } });
                if (call.id) slot.id = call.id;
                if (call.function?.name) slot.function.name += call.function.name;
                if (call.function?.arguments) slot.function.arguments += call.function.arguments;
              }
              if (choice.finish_reason) {
                finish = choice.finish_reason;
                if (unmasker) {
                  const tail = unmasker.flush();
                  if (tail) yield { ...out, choices: [{ index: choice.index, delta: { content: tail }, finish_reason: null }] };
                }
              }
            }
            if (chunk.usage && !p.request.include_usage) {
              if (out.choices.length) yield { ...out, usage: undefined };
            } else yield out;
            // What the client has been sent (the generator resumes once the chunk is written).
            delivered += textOfChunk(chunk);
            step = head.length ? { done: false, value: head.shift()! } : await rest.next();
          }
          outcome = 'ok';
        } catch (error) {
          outcome = signal.aborted ? 'aborted' : 'error';
          if (!signal.aborted) {
            failure = (error as Error).message;
            throw error instanceof UpstreamError ? upstreamFailure(error) : error;
          }
        } finally {
          if (signal.aborted && outcome !== 'ok') outcome = 'aborted';
          await rest.return?.().catch(() => undefined);
          // A stream the upstream cut is charged for what reached the client only; one the client
          // left, for what was generated (the upstream billed it).
          const charged = outcome === 'error' ? deliveredUsage(p, deployment, delivered) : usageOr(outcome === 'ok' ? usage : undefined, p, deployment, text + (toolCalls.length ? JSON.stringify(toolCalls) : ''));
          if (outcome === 'error') log.warn({ deployment: deployment.name, agentCode, requestId, reason: failure, completionTokensDelivered: charged.completion_tokens }, 'stream failed mid-way: the client got an error event; charged for what was delivered');
          const cost = costUsd(charged.prompt_tokens, charged.completion_tokens, deployment.price);
          // The stream's tokens count against its tokens-per-minute limit now that it has ended.
          ticket.settle(charged.prompt_tokens + charged.completion_tokens);
          budgets.settle(reservation, { kind: 'chat', requestedModel: p.request.model, model: deployment.name, deployment: deployment.providerName, promptTokens: charged.prompt_tokens, completionTokens: charged.completion_tokens, costUsd: cost, cached: false, outcome, requestId });
          metrics.completed(agentCode, deployment.name, charged, cost, (performance.now() - started) / 1000, outcome);
          if (outcome === 'ok' && !p.vault) {
            await storeInCache(p, {
              id, object: 'chat.completion', created, model: deployment.name,
              choices: [{ index: 0, message: { role: 'assistant', content: toolCalls.length && !text ? null : text, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: finish ?? 'stop' }],
              usage: charged,
            });
          }
        }
      }
      return { model: deployment.name, cacheStatus: p.cacheStatus, chunks: run() };
    },
  };
}

export type ChatService = ReturnType<typeof createChatService>;
