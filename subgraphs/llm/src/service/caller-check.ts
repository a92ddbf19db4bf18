import type { IncomingHttpHeaders } from 'node:http';
import { bearerToken, hasRole, openAiErrors, type SvcContext } from '@svc/kit';
import type { AgentCaller, Caller } from '../domain/api-key.js';
import type { KeyService } from './key-service.js';

/**
 * Where the credential comes from: a GraphQL context (kit has taken the bearer from its
 * header) or the headers of one of llm's own HTTP routes.
 */
export type CredentialSource = Pick<SvcContext, 'bearer'> | { headers: IncomingHttpHeaders };

function bearerOf(source: CredentialSource): string | undefined {
  if (!('headers' in source)) return source.bearer;
  try {
    return bearerToken(source.headers.authorization);
  } catch {
    return undefined; // a malformed header carries no key: 401 invalid_api_key like a missing one
  }
}

/** Who may call what: every check of gateway keys (agent or master) and admin tokens. */
export function createCallerCheck(keys: KeyService) {
  const identify = (source: CredentialSource): Promise<Caller> => keys.authenticate(bearerOf(source));
  const tryIdentify = (source: CredentialSource): Promise<Caller | undefined> => identify(source).catch(() => undefined);
  async function agentCaller(source: CredentialSource, refusal: string): Promise<AgentCaller> {
    const caller = await identify(source);
    if (caller.kind !== 'agent') throw openAiErrors.permissionDenied(refusal, 'agent_key_required');
    return caller;
  }

  return {
    /** Any gateway key, agent or master; 401 invalid_api_key otherwise. */
    identify,

    /** Like identify, but undefined instead of an error. */
    tryIdentify,

    /** An agent's key, whose agent is charged; the master key is refused with `refusal` (403). */
    async agent(source: CredentialSource, refusal: string): Promise<string> {
      return (await agentCaller(source, refusal)).agentCode;
    },

    /** Like agent, with the key and the rate limits of the key and its agent. */
    agentCaller,

    /** The master key, or a platform token with role admin. */
    async admin(ctx: SvcContext): Promise<void> {
      if (ctx.principal) {
        if (hasRole(ctx.principal)) return;
        throw openAiErrors.permissionDenied('Gateway administration needs role admin');
      }
      const caller = await identify(ctx);
      if (caller.kind !== 'master') throw openAiErrors.permissionDenied('Gateway administration needs the master key (SVCLLM_MASTER_KEY)', 'master_key_required');
    },

    /**
     * Reading budgets and usage: the master key, admins, and the people who analyse and review
     * spending (roles analyst and reviewer; read only, so a reviewer sees what thinking costs).
     */
    async reader(ctx: SvcContext): Promise<void> {
      if (ctx.principal) {
        if (hasRole(ctx.principal, 'analyst', 'reviewer')) return;
        throw openAiErrors.permissionDenied('Reading gateway budgets needs role admin, analyst or reviewer');
      }
      const caller = await identify(ctx);
      if (caller.kind !== 'master') throw openAiErrors.permissionDenied('Gateway administration needs the master key (SVCLLM_MASTER_KEY)', 'master_key_required');
    },

    /** Admins, analysts and reviewers see every agent, an agent's key only its own agent. */
    async maySeeAgent(ctx: SvcContext, code: string): Promise<boolean> {
      if (hasRole(ctx.principal, 'analyst', 'reviewer')) return true;
      const caller = await tryIdentify(ctx);
      return !!caller && (caller.kind === 'master' || caller.agentCode === code);
    },
  };
}

export type CallerCheck = ReturnType<typeof createCallerCheck>;
