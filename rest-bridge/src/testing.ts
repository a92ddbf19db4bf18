import type { GraphQLResult, RouterAnswer } from '@svc/kit';

/** A router's answer carrying `result` as Apollo Server writes it (errors before data, a newline after), for fakes of the router. */
export function answerOf(result: GraphQLResult, status = 200): RouterAnswer {
  const { errors, data, ...rest } = result as GraphQLResult & Record<string, unknown>;
  const ordered = { ...(errors ? { errors } : {}), ...(data !== undefined ? { data } : {}), ...rest };
  return { status, body: `${JSON.stringify(ordered)}\n` };
}
