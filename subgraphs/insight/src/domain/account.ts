import { ROLES, type Principal, type Role } from '@svc/kit';
import { z } from 'zod';

/** A scope claim: some tenant ids (or site keys), or `'*'` for all of them. */
export type Scope = readonly string[] | '*';

/** A stored account as the admin API shows it (never its password hash). */
export interface Account {
  username: string;
  roles: Role[];
  tenants: Scope;
  sites: Scope;
  disabled: boolean;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** When its sessions last ended (password change, disable, new grants); null: never. */
  sessionsEndedAt: Date | null;
}

/** What login needs beside the account. */
export interface StoredAccount extends Account {
  passwordHash: string;
  /** Raised by every change that ends its sessions; its tokens carry the one they were signed with (claim `sv`). */
  sessionVersion: number;
}

/** The grants an account carries into its tokens. */
export interface Grants {
  roles: Role[];
  tenants: Scope;
  sites: Scope;
}

export const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const SCOPE_ITEM = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const usernameSchema = z.string({ error: 'username is required and must be a string' }).regex(USERNAME, 'username must be 1-64 letters, digits or . _ @ -, starting with a letter or digit');
/** New passwords: 8-1024 characters (login accepts what was set before, up to 1024). */
export const newPasswordSchema = z
  .string({ error: 'password is required and must be a string' })
  .min(8, 'password must be at least 8 characters')
  .max(1024, 'password must be at most 1024 characters');
const rolesSchema = z
  .array(z.enum(ROLES, { error: `each role must be one of ${ROLES.join(', ')}` }))
  .min(1, 'roles must name at least one role')
  .max(ROLES.length)
  .transform((roles) => [...new Set(roles)]);
/** `"*"`, `["*"]` or a list of ids; the list form of `*` becomes `"*"`. */
const scopeSchema = (what: string) =>
  z
    .union([z.literal('*'), z.array(z.string().regex(SCOPE_ITEM, `each ${what} must be 1-64 letters, digits or . _ - (or "*" alone for all)`).or(z.literal('*'))).max(200)], { error: `${what}s must be "*" or an array of ${what}s` })
    .transform((v): Scope => (v === '*' || v.includes('*') ? '*' : [...new Set(v)]));

export const accountInputSchema = z
  .object({ username: usernameSchema, password: newPasswordSchema, roles: rolesSchema, tenants: scopeSchema('tenant').default([]), sites: scopeSchema('site').default([]) })
  .strict()
  .meta({ example: { username: 'alice', password: 'a-long-first-password', roles: ['analyst'], tenants: ['demo'], sites: ['demo'] } });

export const accountUpdateSchema = z
  .object({ roles: rolesSchema.optional(), tenants: scopeSchema('tenant').optional(), sites: scopeSchema('site').optional() })
  .strict()
  .refine((v) => v.roles !== undefined || v.tenants !== undefined || v.sites !== undefined, 'give at least one of roles, tenants, sites')
  .meta({ example: { roles: ['analyst', 'reviewer'], tenants: ['demo'] } });

export const passwordInputSchema = z.object({ password: newPasswordSchema }).strict().meta({ example: { password: 'a-new-long-password' } });

/** A person's own password change (the current one proves it is them, not just their token). */
export const ownPasswordInputSchema = z
  .object({ currentPassword: z.string({ error: 'currentPassword is required and must be a string' }).min(1, 'currentPassword is required').max(1024), newPassword: newPasswordSchema })
  .strict()
  .meta({ example: { currentPassword: 'a-long-first-password', newPassword: 'my-own-longer-password' } });

export type AccountInput = z.output<typeof accountInputSchema>;
export type AccountUpdate = z.output<typeof accountUpdateSchema>;

/** Whether `wanted` lies inside `held`: `'*'` holds everything; a list holds only its members. */
export function within(held: Scope, wanted: Scope): boolean {
  if (held === '*') return true;
  if (wanted === '*') return false;
  return wanted.every((id) => held.includes(id));
}

/**
 * The delegation rule: an admin manages an account, and grants tenants and sites, only within
 * its own tenants and sites. An admin of every tenant (`*`) manages every account; an admin of
 * tenant t1 only accounts confined to t1, so it can neither take over a wider account (reset its
 * password, disable it) nor grant what it does not hold. The names of what it lacks, or none.
 */
export function outsideOf(admin: Principal, grants: Pick<Grants, 'tenants' | 'sites'>): string[] {
  const missing: string[] = [];
  if (!within(admin.tenants, grants.tenants)) missing.push(grants.tenants === '*' ? 'tenants "*"' : `tenants ${grants.tenants.filter((t) => !within(admin.tenants, [t])).join(', ')}`);
  if (!within(admin.sites, grants.sites)) missing.push(grants.sites === '*' ? 'sites "*"' : `sites ${grants.sites.filter((s) => !within(admin.sites, [s])).join(', ')}`);
  return missing;
}
