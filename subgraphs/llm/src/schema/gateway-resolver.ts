import { IDEMPOTENCY_KEY_DOC, openAiErrors, parseInput, type SvcContext } from '@svc/kit';
import { apiKeyListQuerySchema, usageQuerySchema } from '../contract.js';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { parseBudgetChange } from '../service/budget-service.js';
import type { GatewayServices } from '../service/gateway-services.js';
import { Agent, ApiKey, Budget, ChatCompletionResult, CreatedApiKey, RateLimits, RateLimitsInput, SetBudgetInput, UsageRow } from './types.js';

function dateArg(value: string | null | undefined, name: string): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < 1 || year > 9999) throw openAiErrors.invalidRequest(`${name} must be an ISO 8601 date or time in the years 1-9999; got ${JSON.stringify(value)}`, name);
  return date;
}

@Resolver()
export class GatewayResolver {
  constructor(private readonly services: GatewayServices) {}

  /** An agent's virtual key: whom to charge, under which rate limits. */
  private agent(ctx: SvcContext) {
    return this.services.callers.agentCaller(ctx, 'The master key administers the gateway; call models with an agent key (POST /admin/v1/keys creates one)');
  }

  @Mutation(() => ChatCompletionResult, { description: 'OpenAI chat completion (request as sent to /v1/chat/completions). Streams go through the REST path.' })
  async chatCompletion(@Arg('request', () => GraphQLJSONObject) request: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<ChatCompletionResult> {
    const caller = await this.agent(ctx);
    if (request.stream === true) throw openAiErrors.invalidRequest('stream: true is served by POST /v1/chat/completions on the REST bridge (SSE); GraphQL answers whole completions', 'stream');
    const outcome = await this.services.chat.complete(caller, request, ctx.requestId);
    return { completion: outcome.completion as unknown as Record<string, unknown>, model: outcome.model, cacheStatus: outcome.cacheStatus, routeReason: outcome.routeReason ?? null };
  }

  @Mutation(() => GraphQLJSONObject, { description: 'OpenAI embeddings (request as sent to /v1/embeddings).' })
  async createEmbeddings(@Arg('request', () => GraphQLJSONObject) request: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<Record<string, unknown>> {
    const caller = await this.agent(ctx);
    return (await this.services.embeddings.embed(caller, request, ctx.requestId)) as unknown as Record<string, unknown>;
  }

  @Query(() => GraphQLJSONObject, { description: 'OpenAI model list: the aliases, then every configured chat and embedding model.' })
  async models(@Ctx() ctx: SvcContext): Promise<Record<string, unknown>> {
    await this.services.callers.identify(ctx);
    return { ...this.services.modelList() };
  }

  @Query(() => [Budget])
  async budgets(@Ctx() ctx: SvcContext): Promise<Budget[]> {
    const readable = await this.services.access.readable(ctx);
    return (await this.services.budgets.list()).filter((b) => readable(b.agentCode));
  }

  @Mutation(() => Budget, { description: 'Sets the monthly budget and blocking threshold of one agent (creating the agent if needed).' })
  async setBudget(
    @Arg('input', () => SetBudgetInput) input: SetBudgetInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DOC }) idempotencyKey: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<Budget> {
    return this.services.access.manage(ctx, input.agentCode, () => this.services.budgets.set(input, idempotencyKey), () => this.services.alertUrls.check(parseBudgetChange(input).alertWebhookUrl));
  }

  @Query(() => [ApiKey], { description: "Keys of the agents the caller reads (admin, analyst or reviewer of the agent's tenant; every agent for the master key and platform admins): their metadata, never the key." })
  async apiKeys(@Arg('agentCode', () => String, { nullable: true }) agentCode: string | null, @Ctx() ctx: SvcContext): Promise<ApiKey[]> {
    const readable = await this.services.access.readable(ctx);
    const keys = await this.services.keys.list(parseInput(apiKeyListQuerySchema, { agentCode: agentCode ?? undefined }, '', { describe: true }).agentCode);
    return keys.filter((k) => readable(k.agentCode));
  }

  @Mutation(() => CreatedApiKey, { description: 'Creates a virtual key bound to one agent; the key is in the answer only.' })
  async createApiKey(@Arg('agentCode', () => String, { nullable: true }) agentCode: string | null, @Arg('name', () => String, { nullable: true }) name: string | null, @Ctx() ctx: SvcContext): Promise<CreatedApiKey> {
    return this.services.access.manage(ctx, agentCode, () => this.services.keys.create(agentCode, name), () => this.services.keys.checkCreate(agentCode, name));
  }

  @Mutation(() => RateLimits, { description: "Sets an agent's rate limits, shared by all its keys (creating the agent if needed); as POST /admin/v1/agents/{agentCode}/limits." })
  async setAgentLimits(@Arg('agentCode', () => String) agentCode: string, @Arg('input', () => RateLimitsInput) input: RateLimitsInput, @Ctx() ctx: SvcContext): Promise<RateLimits> {
    return this.services.access.manage(ctx, agentCode, () => this.services.keys.setAgentLimits(agentCode, input), () => this.services.keys.checkAgentLimits(agentCode, input));
  }

  @Mutation(() => RateLimits, { description: "Sets one key's rate limits; as POST /admin/v1/keys/{id}/limits." })
  async setKeyLimits(@Arg('id', () => ID) id: string, @Arg('input', () => RateLimitsInput) input: RateLimitsInput, @Ctx() ctx: SvcContext): Promise<RateLimits> {
    await this.services.access.manageKey(ctx, id);
    return this.services.keys.setKeyLimits(id, input);
  }

  @Mutation(() => ApiKey)
  async revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: SvcContext): Promise<ApiKey> {
    await this.services.access.manageKey(ctx, id);
    return this.services.keys.revoke(id);
  }

  @Query(() => [UsageRow], { description: 'Usage per agent, model and UTC day; from inclusive, to exclusive.' })
  async usage(
    @Arg('agentCode', () => String, { nullable: true }) agentCode: string | null,
    @Arg('from', () => String, { nullable: true }) from: string | null,
    @Arg('to', () => String, { nullable: true }) to: string | null,
    @Ctx() ctx: SvcContext,
  ): Promise<UsageRow[]> {
    const readable = await this.services.access.readable(ctx);
    const query = parseInput(usageQuerySchema, { agentCode: agentCode ?? undefined }, '', { describe: true });
    const rows = await this.services.budgets.usage({ agentCode: query.agentCode, from: dateArg(from, 'from'), to: dateArg(to, 'to') });
    return rows.filter((row) => readable(row.agentCode));
  }

  @Query(() => Agent, {
    name: 'agent',
    nullable: true,
    description: "An agent with its budget (admin, analyst or reviewer of the agent's tenant; every agent for the master key and platform admins). Null for an agent you cannot read, as for none.",
  })
  async agentByCode(@Arg('code', () => String) code: string, @Ctx() ctx: SvcContext): Promise<Agent | null> {
    return (await this.services.access.mayRead(ctx, code)) ? this.services.budgets.agent(code) : null;
  }
}

/** Agent.limits: the agent's rate limits, read when asked for. */
@Resolver(() => Agent)
export class AgentLimitsResolver {
  constructor(private readonly services: GatewayServices) {}

  @FieldResolver(() => RateLimits, { description: 'Rate limits shared by all of the agent\'s keys.' })
  async limits(@Root() agent: Agent): Promise<RateLimits> {
    return this.services.keys.agentLimits(agent.code);
  }
}
