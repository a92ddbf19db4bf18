import { describe, expect, it } from '@jest/globals';
import type { Principal } from '@svc/kit';
import { accountInputSchema, accountUpdateSchema, outsideOf, within } from './account.js';

const tenantAdmin: Principal = { subject: 'tina', roles: ['admin'], tenants: ['t1', 't2'], sites: ['s1'] };
const platformAdmin: Principal = { subject: 'admin', roles: ['admin'], tenants: '*', sites: '*' };

describe('delegation', () => {
  it('holds a scope within "*" always, within a list only its members', () => {
    expect(within('*', '*')).toBe(true);
    expect(within('*', ['a'])).toBe(true);
    expect(within(['a', 'b'], ['b'])).toBe(true);
    expect(within(['a'], [])).toBe(true);
    expect(within(['a'], ['a', 'c'])).toBe(false);
    expect(within(['a'], '*')).toBe(false);
  });

  it('names what an admin would grant beyond its own tenants and sites', () => {
    expect(outsideOf(tenantAdmin, { tenants: ['t1'], sites: ['s1'] })).toEqual([]);
    expect(outsideOf(tenantAdmin, { tenants: ['t1', 't3', 't4'], sites: [] })).toEqual(['tenants t3, t4']);
    expect(outsideOf(tenantAdmin, { tenants: '*', sites: '*' })).toEqual(['tenants "*"', 'sites "*"']);
    expect(outsideOf(platformAdmin, { tenants: '*', sites: ['anything'] })).toEqual([]);
  });
});

describe('account input', () => {
  it('reads ["*"] as "*", drops repeated roles and ids, and defaults tenants and sites to none', () => {
    expect(accountInputSchema.parse({ username: 'a.b@c', password: '12345678', roles: ['analyst', 'analyst'], tenants: ['t1', '*'] })).toEqual({
      username: 'a.b@c', password: '12345678', roles: ['analyst'], tenants: '*', sites: [],
    });
    expect(accountUpdateSchema.parse({ sites: ['s1', 's1'] })).toEqual({ sites: ['s1'] });
  });

  it('refuses a bad username, a short password, an unknown role, an empty role list and unknown members', () => {
    for (const bad of [
      { username: '-x', password: '12345678', roles: ['analyst'] },
      { username: 'x', password: '1234567', roles: ['analyst'] },
      { username: 'x', password: '12345678', roles: ['root'] },
      { username: 'x', password: '12345678', roles: [] },
      { username: 'x', password: '12345678', roles: ['analyst'], sites: 'all' },
      { username: 'x', password: '12345678', roles: ['analyst'], admin: true },
    ]) expect(accountInputSchema.safeParse(bad).success).toBe(false);
    expect(accountUpdateSchema.safeParse({}).success).toBe(false);
  });
});
