import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type ASTVisitor, type GraphQLFormattedError, type ValidationContext } from 'graphql';

/**
 * Numbers that overflow a double (the literal `1e309`, or `1e309` in the variables' JSON,
 * which JSON.parse reads as Infinity) are the caller's mistake, refused as such before any
 * planning or execution; left alone they surface as internal errors deep in the gateway.
 */
export function FiniteNumberRule(context: ValidationContext): ASTVisitor {
  const check = (node: { value: string }) => {
    if (!Number.isFinite(Number(node.value))) {
      context.reportError(new GraphQLError(`The number ${node.value.slice(0, 40)} is out of range: numbers must be finite doubles`, { extensions: { code: 'BAD_USER_INPUT' } }));
    }
  };
  return { FloatValue: check, IntValue: check };
}

/** The path of the first non-finite number in a JSON value, if any. */
export function nonFinitePath(value: unknown, path = '$'): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nonFinitePath(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const found = nonFinitePath(v, `${path}.${key}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** Refuses variables holding a number beyond a double's range, with 400. */
export function useFiniteVariables<T extends object>(): ApolloServerPlugin<T> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request }) {
          const path = nonFinitePath(request.variables ?? {});
          if (path) {
            throw new GraphQLError(`Variable ${path.replace(/^\$\.?/, '')} holds a number out of range: numbers must be finite doubles`, {
              extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}

/** Terminal escape sequences and other control characters some libraries colour their messages with. */
const TERMINAL_CODES = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b[@-_]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

export function withoutTerminalCodes(message: string): string {
  return message.replace(TERMINAL_CODES, '');
}

/** An error as a client sees it, with any terminal escape codes removed from its message. */
export function plainMessage(formatted: GraphQLFormattedError): GraphQLFormattedError {
  const message = withoutTerminalCodes(formatted.message);
  return message === formatted.message ? formatted : { ...formatted, message };
}
