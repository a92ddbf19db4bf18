import { GraphQLJSONObject } from 'graphql-scalars';
import { Directive, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { Agent as DomainAgent } from '../domain/agent.js';
import type { ApiKey as DomainApiKey } from '../domain/api-key.js';
import type { BudgetSettings, Budget as DomainBudget } from '../domain/budget.js';
import type { BudgetStatus } from '../domain/budget-status.js';
import type { RateLimits as DomainRateLimits } from '../domain/rate-limits.js';
import type { UsageRow as DomainUsageRow } from '../domain/usage.js';

// The GraphQL types of the domain's records: each class implements its domain interface, so
// resolvers return domain objects as they are.

@ObjectType({ description: 'A chat completion in OpenAI wire format, with how it was served.' })
export class ChatCompletionResult {
  @Field(() => GraphQLJSONObject, { description: 'The `chat.completion` object, exactly as OpenAI clients expect it.' }) completion!: Record<string, unknown>;
  @Field(() => String, { description: 'The model that answered (after routing and fallback).' }) model!: string;
  @Field(() => String, { description: 'HIT, MISS or BYPASS' }) cacheStatus!: string;
  @Field(() => String, { nullable: true, description: 'Why auto-route chose its tier.' }) routeReason?: string | null;
}

@ObjectType({ description: 'Budget of one agent for the current calendar month (UTC).' })
export class Budget implements DomainBudget {
  @Field(() => String) agentCode!: string;
  @Field(() => String, { description: 'Always MONTHLY.' }) period!: 'MONTHLY';
  @Field(() => Float) allocatedUsd!: number;
  @Field(() => Float) currentUsageUsd!: number;
  @Field(() => Float, { description: 'currentUsageUsd / allocatedUsd x 100, two decimals.' }) burnRatePercent!: number;
  @Field(() => Float) alertThresholdPercent!: number;
  @Field(() => String, { description: 'HEALTHY below the threshold, WARNING_THRESHOLD_EXCEEDED at or above it.' }) status!: BudgetStatus;
  @Field(() => Boolean) hardLimitEnabled!: boolean;
  @Field(() => String, { nullable: true }) alertWebhookUrl!: string | null;
  @Field(() => Float, { description: 'Held by requests in flight.' }) reservedUsd!: number;
  @Field(() => Float, { description: 'allocated - spent - held, at least 0.' }) remainingUsd!: number;
  @Field(() => String, { nullable: true, description: "The tenant the agent belongs to (or, for a platform agent's share <agent>:<tenant>, is charged for); null for the platform's own." })
  tenantId!: string | null;
  @Field(() => String, { description: "TENANT: the tenant's admins manage it. PLATFORM: the master key and platform admins only." })
  managedBy!: 'TENANT' | 'PLATFORM';
}

@InputType({ description: 'Every member is checked by the service, so errors name the member (422).' })
export class SetBudgetInput implements Partial<BudgetSettings> {
  @Field(() => String, { nullable: true }) agentCode?: string;
  @Field(() => Float, { nullable: true }) monthlyBudgetUsd?: number;
  @Field(() => Boolean, { nullable: true, description: 'Default false: record spending but never block.' }) hardLimitEnabled?: boolean;
  @Field(() => String, { nullable: true }) alertWebhookUrl?: string | null;
  @Field(() => Float, { nullable: true, description: 'Default 80.' }) alertThresholdPercent?: number;
}

@ObjectType({ description: 'Rate limits of an agent (shared by its keys) or of one key; null is no limit. A request must fit both.' })
export class RateLimits implements DomainRateLimits {
  @Field(() => Int, { nullable: true, description: 'Requests admitted in any 60 s.' }) requestsPerMinute!: number | null;
  @Field(() => Float, { nullable: true, description: 'Prompt + completion tokens in any 60 s; a request holds its estimate (prompt estimate + max_tokens) until it ends.' }) tokensPerMinute!: number | null;
  @Field(() => Int, { nullable: true, description: 'Requests in flight at once.' }) maxConcurrent!: number | null;
}

@InputType({ description: 'Absent members keep their value; null removes the limit. Checked by the service, so errors name the member (422).' })
export class RateLimitsInput implements Partial<DomainRateLimits> {
  @Field(() => Int, { nullable: true }) requestsPerMinute?: number | null;
  @Field(() => Float, { nullable: true }) tokensPerMinute?: number | null;
  @Field(() => Int, { nullable: true }) maxConcurrent?: number | null;
}

@ObjectType()
export class ApiKey implements DomainApiKey {
  @Field(() => ID) id!: string;
  @Field(() => String) agentCode!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'The first characters, for recognising a key; the key itself is never stored.' }) keyPrefix!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
  @Field(() => RateLimits, { description: "This key's own limits (its agent's apply too)." }) limits!: RateLimits;
}

@ObjectType({ description: 'A new key: `key` is shown this once.' })
export class CreatedApiKey extends ApiKey {
  @Field(() => String) key!: string;
}

@ObjectType()
export class UsageRow implements DomainUsageRow {
  @Field(() => String) agentCode!: string;
  @Field(() => String) model!: string;
  @Field(() => String, { description: 'UTC day, YYYY-MM-DD' }) day!: string;
  @Field(() => Int) requests!: number;
  @Field(() => Int) promptTokens!: number;
  @Field(() => Int) completionTokens!: number;
  @Field(() => Float) costUsd!: number;
  @Field(() => Int) cacheHits!: number;
}

@Directive('@key(fields: "code")')
@ObjectType({ description: 'An agent or department that spends on models. Other subgraphs reference it by code.' })
export class Agent implements DomainAgent {
  @Field(() => String) code!: string;
  @Field(() => Budget) budget!: Budget;
  @Field(() => [UsageRow], { description: 'This month, per model and UTC day.' }) usage!: Promise<UsageRow[]>;
}
