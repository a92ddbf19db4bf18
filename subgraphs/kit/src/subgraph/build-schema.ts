import 'reflect-metadata';
import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { graphql, parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type NonEmptyArray } from 'type-graphql';
import type { SvcContext } from '../context.js';

const FEDERATION_LINK =
  'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable", "@external", "@requires", "@provides"])';

export interface SchemaParts {
  // type-graphql takes resolver classes; instances come from `resolve`.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  resolvers: NonEmptyArray<Function>;
  /** Resolver instances by class: explicit wiring instead of a global container. */
  instances?: readonly object[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  orphanedTypes?: Function[];
  /**
   * Resolvers merged over type-graphql's, by type name: `__resolveReference` of an entity, or a
   * synchronous `__resolveType` of a union (type-graphql's own is an async wrapper: one promise,
   * and graphql-js's slower path, for every value of the union in an answer).
   */
  referenceResolvers?: GraphQLResolverMap<SvcContext>;
}

/** Prints the subgraph SDL (with federation directives) that composition and `_service` use. */
export async function buildSubgraphSdl(parts: SchemaParts): Promise<{ sdl: string; schema: GraphQLSchema }> {
  const byClass = new Map((parts.instances ?? []).map((i) => [i.constructor, i]));
  const typeSchema = await buildSchema({
    resolvers: parts.resolvers,
    orphanedTypes: parts.orphanedTypes,
    validate: false,
    skipCheck: true,
    emitSchemaFile: false,
    container: {
      get: (cls) => {
        const instance = byClass.get(cls);
        if (!instance) throw new Error(`No resolver instance wired for ${(cls as { name?: string }).name}`);
        return instance;
      },
    },
  });
  const sdl = `${FEDERATION_LINK}\n\n${printSchemaWithDirectives(typeSchema)}\n`;
  const resolvers = createResolversMap(typeSchema) as GraphQLResolverMap<SvcContext>;
  for (const [typeName, reference] of Object.entries(parts.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...(resolvers[typeName] as object), ...(reference as object) } as GraphQLResolverMap<SvcContext>[string];
  }
  const schema = buildSubgraphSchema([{ typeDefs: parse(sdl), resolvers }]);
  // The snapshot is exactly what `_service { sdl }` serves, so a drift test can compare them.
  const served = await graphql({ schema, source: '{ _service { sdl } }' });
  return { sdl: `${(served.data as { _service: { sdl: string } })._service.sdl.trim()}\n`, schema };
}
