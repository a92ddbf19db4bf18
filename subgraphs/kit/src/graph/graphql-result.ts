import { SvcError, isErrorCode, type FieldProblem } from '../errors.js';

/** One entry of a GraphQL response's `errors`. */
export interface GraphQLErrorEntry {
  message: string;
  /** Where in `data` the error is (response names and list indexes). */
  path?: readonly (string | number)[];
  extensions?: Record<string, unknown>;
}

/** A GraphQL response body as the router sends it. */
export interface GraphQLResult {
  data?: Record<string, unknown> | null;
  errors?: GraphQLErrorEntry[];
}

/**
 * The typed error a GraphQL error entry stands for, so a service calling the graph fails with
 * the same code the called subgraph raised. Codes outside the platform's vocabulary mean the
 * call itself was wrong (an operation that does not validate, ...): INTERNAL_SERVER_ERROR. A
 * subgraph the router could not reach (SUBGRAPH_UNAVAILABLE) is UNAVAILABLE, as the REST bridge
 * reports it.
 */
export function svcErrorOf(error: GraphQLErrorEntry): SvcError {
  const ext = error.extensions ?? {};
  if (ext.code === 'DOWNSTREAM_SERVICE_ERROR' && !('status' in ext)) return new SvcError('UNAVAILABLE', error.message, { retryAfter: 5 });
  // The router answering for a subgraph that did not answer: retried like any unavailable service.
  if (ext.code === 'SUBGRAPH_UNAVAILABLE') return new SvcError('UNAVAILABLE', error.message, { retryAfter: 5, slug: 'subgraph-unavailable', details: typeof ext.serviceName === 'string' ? { subgraph: ext.serviceName } : undefined });
  if (!isErrorCode(ext.code)) return new SvcError('INTERNAL_SERVER_ERROR', error.message);
  return new SvcError(ext.code, error.message, {
    status: ext.status === 422 ? 422 : undefined,
    slug: typeof ext.slug === 'string' ? ext.slug : undefined,
    title: typeof ext.title === 'string' ? ext.title : undefined,
    errors: Array.isArray(ext.errors) ? (ext.errors as FieldProblem[]) : undefined,
    retryAfter: typeof ext.retryAfter === 'number' ? ext.retryAfter : undefined,
    details: typeof ext.details === 'object' && ext.details ? (ext.details as Record<string, unknown>) : undefined,
  });
}
