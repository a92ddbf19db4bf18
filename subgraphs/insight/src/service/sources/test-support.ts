import type { Principal } from '@svc/kit';
import type { GraphCall } from '../graph-call.js';

/** A caller of tenant acme with roles analyst and editor on site shop, changed by `principal`. */
export const callerOf = (principal: Partial<Principal> = {}) => ({ principal: { subject: 'ana', roles: ['analyst', 'editor'], tenants: ['acme'], sites: ['shop'], ...principal } as Principal, tenantId: 'acme', headers: {} });

/** A router that answers each operation from a table (a function of the variables), recording the calls. */
export function routerOf(answers: Record<string, (variables: Record<string, unknown>) => unknown>) {
  const calls: string[] = [];
  const call: GraphCall = async <T>(operation: string, variables: Record<string, unknown>) => {
    calls.push(`${operation} ${JSON.stringify(variables)}`);
    const answer = answers[operation];
    if (!answer) throw new Error(`unexpected ${operation}`);
    return answer(variables) as T;
  };
  return { call, calls };
}
