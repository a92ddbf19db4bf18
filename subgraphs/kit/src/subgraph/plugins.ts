import type { ApolloServerPlugin, GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, Kind, type ASTVisitor, type GraphQLFormattedError, type SelectionSetNode, type ValidationContext } from 'graphql';
import { CLIENT_CODES, SvcError } from '../errors.js';
import { isDependencyDown, knownFailure } from '../failures.js';
import { textProblem } from '../input-guard.js';
import type { SvcContext } from '../context.js';
import type { Logger } from '../logger.js';

const ALWAYS_PUBLIC = new Set(['__schema', '__type', '__typename', '_service']);

function rootFields(selectionSet: SelectionSetNode, fragments: GraphQLRequestContextDidResolveOperation<SvcContext>['document']): string[] {
  const names: string[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) names.push(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) names.push(...rootFields(selection.selectionSet, fragments));
    else {
      const fragment = fragments.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment && fragment.kind === Kind.FRAGMENT_DEFINITION) names.push(...rootFields(fragment.selectionSet, fragments));
    }
  }
  return names;
}

/**
 * Errors raised before execution would otherwise make Apollo answer HTTP 500, which the
 * gateway reports as a subgraph failure instead of passing the typed error on.
 */
function asRequestError(error: SvcError): SvcError {
  const copy = new SvcError(error.code, error.message, {
    slug: error.extensions.slug as string | undefined,
    title: error.extensions.title as string | undefined,
  });
  copy.extensions.http = { status: 200 };
  return copy;
}

export interface GuardOptions {
  /** Root fields anyone may call (for example `login`). */
  publicFields?: readonly string[];
  /** Root fields callable with only the X-Svc-Site-Key header (public delivery). */
  siteKeyFields?: readonly string[];
}

/**
 * No data for anonymous callers: every root field needs a valid credential unless it is
 * introspection, `_service`, or declared public. A credential that was sent but is invalid
 * fails every operation, so a typo in a token never silently downgrades to anonymous.
 */
export function useAuthGuard(options: GuardOptions = {}): ApolloServerPlugin<SvcContext> {
  const publicFields = new Set([...ALWAYS_PUBLIC, ...(options.publicFields ?? [])]);
  const siteKeyFields = new Set(options.siteKeyFields ?? []);
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(request) {
          const ctx = request.contextValue;
          if (!request.operation) return;
          const fields = rootFields(request.operation.selectionSet, request.document);
          if (fields.every((f) => publicFields.has(f))) return;
          if (ctx.authError) throw asRequestError(ctx.authError);
          if (ctx.principal || ctx.bearer) return;
          if (ctx.siteKey && fields.every((f) => publicFields.has(f) || siteKeyFields.has(f))) return;
          throw asRequestError(new SvcError('UNAUTHENTICATED', 'Authentication required: send Authorization: Bearer <access token>'));
        },
      };
    },
  };
}

/**
 * Requests refused because the database is down are reported at most every 10 s, with how many
 * there were, instead of a stack trace each.
 */
const downReport = (() => {
  let last = 0;
  let refused = 0;
  return {
    refused(log: Logger, reason: string) {
      refused++;
      if (Date.now() - last < 10_000) return;
      log.warn({ dependency: 'postgres', reason, refused }, 'database unavailable: requests answered 503');
      last = Date.now();
      refused = 0;
    },
  };
})();

/** Logs each operation once, with its outcome, and every unexpected error with its cause. */
export function useOperationLog(log: Logger): ApolloServerPlugin<SvcContext> {
  return {
    async requestDidStart({ request }) {
      const started = performance.now();
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            const original = unwrapResolverError(error);
            if (original instanceof SvcError || (error.extensions?.code && error.extensions.code !== 'INTERNAL_SERVER_ERROR' && !error.originalError)) continue;
            if (isDependencyDown(original)) {
              downReport.refused(contextValue?.log ?? log, (original as Error).message);
              continue;
            }
            if (knownFailure(original)) continue;
            (contextValue?.log ?? log).error({ err: original, path: error.path }, 'unexpected error in operation');
          }
        },
        async willSendResponse({ contextValue, response, operationName }) {
          const errors = response.body.kind === 'single' ? (response.body.singleResult.errors?.length ?? 0) : 0;
          (contextValue?.log ?? log).debug(
            { operation: operationName ?? request.operationName ?? null, errors, durationMs: Math.round(performance.now() - started) },
            'graphql operation',
          );
        },
      };
    },
  };
}

/** Unknown errors reach callers as a bare "Internal server error"; typed ones keep their message. */
export function maskError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (original instanceof SvcError) return formatted;
  const known = knownFailure(original);
  if (known) return { message: known.message, path: formatted.path, locations: formatted.locations, extensions: known.extensions };
  const code = formatted.extensions?.code;
  const isPlainGraphQLError = original instanceof GraphQLError && !original.originalError;
  // graphql-js coerces arguments during execution: a null for a non-null argument (through a
  // nullable variable) or an invalid value is the caller's mistake.
  if (isPlainGraphQLError && /^Argument "[^"]+" (of non-null type .* must not be null|has invalid value)/.test(original.message)) {
    return { ...formatted, extensions: { code: 'BAD_USER_INPUT', status: 400 } };
  }
  if (typeof code === 'string' && CLIENT_CODES.has(code) && (isPlainGraphQLError || !(original instanceof Error) || original instanceof GraphQLError)) return formatted;
  if (isPlainGraphQLError && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  return { message: 'Internal server error', path: formatted.path, locations: formatted.locations, extensions: { code: 'INTERNAL_SERVER_ERROR', status: 500 } };
}

/** A validation rule: string literals in a document obey the platform's text rule (no NUL, no lone surrogate). */
export function BadTextRule(context: ValidationContext): ASTVisitor {
  return {
    StringValue(node) {
      const problem = textProblem(node.value);
      if (problem) context.reportError(new GraphQLError(`A string argument is not acceptable text: it ${problem}`, { nodes: node, extensions: { code: 'BAD_USER_INPUT' } }));
    },
  };
}
