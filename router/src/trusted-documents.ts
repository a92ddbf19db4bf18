import type { ApolloServerPlugin } from '@apollo/server';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { GraphQLError, parse, print, stripIgnoredCharacters, type DocumentNode } from 'graphql';
import { createHash } from 'node:crypto';

/**
 * The platform's known documents: every named operation of schema/operations/*.graphql (what the
 * REST bridge, the dashboard, the CLI and the MCP servers send).
 *
 * - `any` (the default): every document runs, as Apollo Studio and GraphiQL need. A known document
 *   may also be sent by its SHA-256 alone (Apollo's automatic persisted queries, `extensions.
 *   persistedQuery.sha256Hash` of the text as loadOperations prints it); other clients may
 *   register theirs the APQ way, kept in a bounded cache.
 * - `only` (SVC_TRUSTED_DOCUMENTS=only): only known documents run, by text (whatever its
 *   whitespace and comments) or by hash; anything else is refused with 400
 *   PERSISTED_QUERY_NOT_IN_LIST before it is planned, and nothing can be registered.
 */
export type TrustedDocumentsMode = 'any' | 'only';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The same for any spelling of one document. */
const canonical = (document: DocumentNode) => stripIgnoredCharacters(print(document));

/** How many documents clients may register in `any` mode, and how many `only` decisions are remembered. */
const REGISTERED = 1000;
const DECISIONS = 10_000;

export function trustedDocuments<Context extends object>(operations: ReadonlyMap<string, string>, mode: TrustedDocumentsMode): { cache: KeyValueCache<string>; plugin: ApolloServerPlugin<Context> } {
  const byHash = new Map<string, string>();
  const known = new Set<string>();
  for (const text of operations.values()) {
    byHash.set(sha256(text), text);
    known.add(canonical(parse(text)));
  }
  const registered = new Map<string, string>();
  // Persisted queries are looked up as `apq:<hash>` (Apollo Server's APQ_CACHE_PREFIX).
  const hashOf = (key: string) => key.replace(/^apq:/, '');
  const cache: KeyValueCache<string> = {
    async get(key) {
      const hash = hashOf(key);
      return byHash.get(hash) ?? registered.get(hash);
    },
    async set(key, value) {
      if (mode === 'only' || byHash.has(hashOf(key))) return;
      if (registered.size >= REGISTERED) registered.delete(registered.keys().next().value!);
      registered.set(hashOf(key), value);
    },
    async delete(key) {
      registered.delete(hashOf(key));
    },
  };
  /** Decisions by the hash of the text as sent, so a document is printed once, not every request. */
  const decided = new Map<string, boolean>();
  const plugin: ApolloServerPlugin<Context> = {
    async requestDidStart() {
      if (mode === 'any') return {};
      return {
        async didResolveOperation({ document, queryHash }) {
          let allowed = decided.get(queryHash);
          if (allowed === undefined) {
            allowed = known.has(canonical(document));
            if (decided.size >= DECISIONS) decided.delete(decided.keys().next().value!);
            decided.set(queryHash, allowed);
          }
          if (!allowed) {
            throw new GraphQLError('This router runs only the platform\'s known documents (SVC_TRUSTED_DOCUMENTS=only); the document sent is not one of them', {
              extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
  return { cache, plugin };
}
