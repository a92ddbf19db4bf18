/**
 * The bridge's rule for partial answers, the same for every route (README, "Partial answers"):
 * when the router answers the route's root field with data and every error lies inside it (a
 * member the router could not read: a reference to an entity that is gone or not the caller's,
 * a subgraph that did not answer), the route answers its success status in its service's success
 * envelope, the unreadable members null, plus `errors`: one `{pointer, code, detail}` per part,
 * the pointer into the response body (`/data/3/target`). Anything else with errors (no data for
 * the root field, an error outside it) is the first error in the service's error shape, as
 * before. A partial answer is never kept or served from the bridge's memory and says
 * `Cache-Control: no-store` and `X-Svc-Partial: <parts>`.
 */
import type { GraphQLErrorEntry, GraphQLResult } from '@svc/kit';
import type { BridgeError, PartProblem } from './envelopes/index.js';
import type { RouteSpec } from './route-spec.js';

/** RFC 6901: `~` and `/` escaped in a pointer's reference tokens. */
const token = (key: string | number) => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The parts of a partial answer to `route` (pointers under `payloadPointer`, the payload's place
 * in the body), or undefined when the answer is not a partial one. Errors about members the
 * route does not return (outside its `payload`) are not listed.
 */
export function partialProblems(route: Pick<RouteSpec, 'result' | 'payload' | 'wrap'>, result: GraphQLResult, payloadPointer: string, describe: (error: GraphQLErrorEntry) => BridgeError): PartProblem[] | undefined {
  const value = result.data?.[route.result];
  if (value === null || value === undefined || !result.errors?.length) return undefined;
  const within = route.payload ? route.payload.split('.') : [];
  const problems: PartProblem[] = [];
  for (const error of result.errors) {
    const path = error.path;
    if (!path || path.length < 2 || path[0] !== route.result) return undefined;
    const inResult = path.slice(1);
    if (!within.every((key, i) => inResult[i] === key)) continue;
    const inPayload = [...(route.wrap ? [route.wrap] : []), ...inResult.slice(within.length)];
    const described = describe(error);
    problems.push({ pointer: payloadPointer + inPayload.map((key) => `/${token(key)}`).join(''), code: described.code, detail: described.message });
  }
  return problems;
}
