import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';

/**
 * Apollo Server answers a document it cannot pick an operation from (an `operationName` the
 * document does not hold, or several operations and no name) with 400 OPERATION_RESOLUTION_FAILURE,
 * but only when it executes the schema itself. Behind a gateway the check is left to the gateway's
 * executor, which throws, and the throw becomes a 500. This restores the 400 before execution, in
 * graphql-js's own words.
 */
export function operationResolution<Context extends object>(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, request }) {
          if (operation) return;
          const message = request.operationName
            ? `Unknown operation named "${request.operationName}".`
            : 'Must provide operation name if query contains multiple operations.';
          throw new GraphQLError(message, { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } });
        },
      };
    },
  };
}
