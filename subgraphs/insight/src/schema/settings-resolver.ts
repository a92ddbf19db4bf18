import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { SettingsService } from '../service/insight-settings.js';

@ObjectType({ description: 'A tenant\'s analysis settings (tenant admins). The webhook secret is never shown.' })
export class InsightSettings {
  @Field(() => String) tenantId!: string;
  @Field(() => String, { nullable: true, description: 'Where approved EXTERNAL actions are delivered (signed POST).' }) operatorWebhookUrl!: string | null;
  @Field(() => Boolean, { description: 'Whether a signing secret is stored.' }) operatorWebhookSecretSet!: boolean;
  @Field(() => String, { nullable: true }) updatedBy!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601 UTC' }) updatedAt!: string | null;
}

@Resolver(() => InsightSettings)
export class SettingsResolver {
  constructor(private readonly settings: SettingsService) {}

  @Query(() => InsightSettings, { description: 'The tenant\'s analysis settings (role admin within the tenant).' })
  insightSettings(@Ctx() ctx: SvcContext): Promise<InsightSettings> {
    return this.settings.get(ctx);
  }

  @Mutation(() => InsightSettings, {
    description: 'Sets the tenant\'s operator webhook (role admin within the tenant): {operatorWebhookUrl, operatorWebhookSecret}. The URL passes the SSRF guard (422 naming it otherwise); the secret (16-256 characters) is required with the first URL, left out it is kept; operatorWebhookUrl null clears both.',
  })
  setInsightSettings(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<InsightSettings> {
    return this.settings.set(ctx, input);
  }
}
