import type { SvcContext } from '@svc/kit';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Ctx, Field, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { Account, Scope } from '../domain/account.js';
import type { ManageUsers } from '../service/manage-users.js';

@ObjectType({ description: 'A local account (admin API). Its password is never shown.' })
export class UserAccount {
  @Field(() => String) username!: string;
  @Field(() => [String]) roles!: string[];
  @Field(() => [String], { description: '["*"] for every tenant.' }) tenants!: string[];
  @Field(() => [String], { description: '["*"] for every site.' }) sites!: string[];
  @Field(() => Boolean, { description: 'A disabled account cannot log in; its sessions ended when it was disabled.' }) disabled!: boolean;
  @Field(() => String, { nullable: true, description: 'The admin who created it; null for the configured admin.' }) createdBy!: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => String, { nullable: true, description: 'When its sessions last ended (password change, disable, new grants); tokens issued before are refused.' }) sessionsEndedAt!: string | null;
}

const list = (scope: Scope) => (scope === '*' ? ['*'] : [...scope]);

export function userView(a: Account): UserAccount {
  return {
    username: a.username, roles: [...a.roles], tenants: list(a.tenants), sites: list(a.sites), disabled: a.disabled, createdBy: a.createdBy,
    createdAt: a.createdAt.toISOString(), updatedAt: a.updatedAt.toISOString(), sessionsEndedAt: a.sessionsEndedAt?.toISOString() ?? null,
  };
}

/** The admin API over local accounts: role admin, within the admin's own tenants and sites (manage-users.ts). */
@Resolver()
export class UserResolver {
  constructor(private readonly manage: ManageUsers) {}

  @Query(() => [UserAccount], { description: 'Local accounts within your tenants and sites, by username. Role admin.' })
  async users(@Ctx() ctx: SvcContext): Promise<UserAccount[]> {
    return (await this.manage.list(ctx.principal)).map(userView);
  }

  @Query(() => UserAccount, { description: 'One local account. Role admin; NOT_FOUND outside your tenants and sites.' })
  async user(@Arg('username', () => String) username: string, @Ctx() ctx: SvcContext): Promise<UserAccount> {
    return userView(await this.manage.get(ctx.principal, username));
  }

  @Mutation(() => UserAccount, { description: 'Creates a local account: {username, password (8-1024 characters), roles, tenants, sites}. Role admin; only tenants and sites you hold.' })
  async createUser(@Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<UserAccount> {
    return userView(await this.manage.create(ctx.principal, input));
  }

  @Mutation(() => UserAccount, { description: 'Changes an account\'s roles, tenants or sites ({roles?, tenants?, sites?}); a change ends its sessions. Role admin.' })
  async updateUser(@Arg('username', () => String) username: string, @Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<UserAccount> {
    return userView(await this.manage.update(ctx.principal, username, input));
  }

  @Mutation(() => UserAccount, { description: 'Disables an account: it cannot log in and its sessions end. Role admin.' })
  async disableUser(@Arg('username', () => String) username: string, @Ctx() ctx: SvcContext): Promise<UserAccount> {
    return userView(await this.manage.setDisabled(ctx.principal, username, true));
  }

  @Mutation(() => UserAccount, { description: 'Enables a disabled account again. Role admin.' })
  async enableUser(@Arg('username', () => String) username: string, @Ctx() ctx: SvcContext): Promise<UserAccount> {
    return userView(await this.manage.setDisabled(ctx.principal, username, false));
  }

  @Mutation(() => UserAccount, { description: 'Sets an account\'s password ({password}, 8-1024 characters); its sessions end. Role admin.' })
  async setUserPassword(@Arg('username', () => String) username: string, @Arg('input', () => GraphQLJSONObject) input: Record<string, unknown>, @Ctx() ctx: SvcContext): Promise<UserAccount> {
    return userView(await this.manage.setPassword(ctx.principal, username, input));
  }
}
