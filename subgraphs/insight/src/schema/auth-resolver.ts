import { requirePrincipal, type SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { AccountService } from '../service/account-service.js';

@ObjectType()
export class AccessToken {
  @Field(() => String) accessToken!: string;
  @Field(() => String) tokenType!: string;
  @Field(() => Int, { description: 'Seconds until the token expires.' }) expiresIn!: number;
}

@ObjectType({ description: 'The caller, as its token says.' })
export class Viewer {
  @Field(() => String) subject!: string;
  @Field(() => [String]) roles!: string[];
  @Field(() => [String], { description: '["*"] for every tenant.' }) tenants!: string[];
  @Field(() => [String], { description: '["*"] for every site.' }) sites!: string[];
}

@Resolver()
export class AuthResolver {
  constructor(private readonly accounts: AccountService) {}

  @Mutation(() => AccessToken, { description: 'Exchanges a username and password for a JWT access token. Throttled per username and client address: RATE_LIMITED (429) with retryAfter after a few failures.' })
  issueAccessToken(@Arg('username', () => String) username: string, @Arg('password', () => String) password: string, @Ctx() ctx: SvcContext): Promise<AccessToken> {
    return this.accounts.issue(username, password, ctx.clientIp);
  }

  @Mutation(() => AccessToken, { description: 'Changes your own password ({currentPassword, newPassword}, 8-1024 characters): every session of yours ends and a fresh token for this one is returned. Local accounts only; throttled like a login.' })
  changeMyPassword(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<AccessToken> {
    return this.accounts.changeOwnPassword(ctx.principal, input, ctx.clientIp);
  }

  @Query(() => Viewer)
  viewer(@Ctx() ctx: SvcContext): Viewer {
    const p = requirePrincipal(ctx.principal);
    return { subject: p.subject, roles: [...p.roles], tenants: p.tenants === '*' ? ['*'] : [...p.tenants], sites: p.sites === '*' ? ['*'] : [...p.sites] };
  }
}
