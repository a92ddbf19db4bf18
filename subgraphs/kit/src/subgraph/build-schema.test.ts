import { describe, expect, it } from '@jest/globals';
import { graphql, type GraphQLUnionType } from 'graphql';
import { createUnionType, Field, ObjectType, Query, Resolver } from 'type-graphql';
import { buildSubgraphSdl } from './build-schema.js';

@ObjectType('BuildSchemaTestCat')
class Cat {
  @Field(() => String) meow!: string;
}

@ObjectType('BuildSchemaTestDog')
class Dog {
  @Field(() => String) woof!: string;
}

const typeOf = (value: object) => ('meow' in value ? 'BuildSchemaTestCat' : 'BuildSchemaTestDog');

const Pet = createUnionType({ name: 'BuildSchemaTestPet', types: () => [Cat, Dog] as const, resolveType: typeOf });

@Resolver()
class PetResolver {
  @Query(() => [Pet])
  buildSchemaTestPets(): object[] {
    return [{ meow: 'a' }, { woof: 'b' }, { meow: 'c' }];
  }
}

const QUERY = '{ buildSchemaTestPets { __typename ... on BuildSchemaTestCat { meow } ... on BuildSchemaTestDog { woof } } }';

describe('buildSubgraphSdl', () => {
  it("resolves a union with the subgraph's synchronous __resolveType instead of type-graphql's async wrapper, answering the same", async () => {
    const plain = await buildSubgraphSdl({ resolvers: [PetResolver], instances: [new PetResolver()] });
    const sync = await buildSubgraphSdl({ resolvers: [PetResolver], instances: [new PetResolver()], referenceResolvers: { BuildSchemaTestPet: { __resolveType: typeOf } } });
    const resolveOf = (schema: typeof plain.schema) => (schema.getType('BuildSchemaTestPet') as GraphQLUnionType).resolveType!;
    // type-graphql's own: a promise for every value.
    expect(resolveOf(plain.schema)({ meow: 'x' }, {}, undefined as never, undefined as never)).toBeInstanceOf(Promise);
    expect(resolveOf(sync.schema)({ meow: 'x' }, {}, undefined as never, undefined as never)).toBe('BuildSchemaTestCat');
    const expected = { data: { buildSchemaTestPets: [{ __typename: 'BuildSchemaTestCat', meow: 'a' }, { __typename: 'BuildSchemaTestDog', woof: 'b' }, { __typename: 'BuildSchemaTestCat', meow: 'c' }] } };
    expect(await graphql({ schema: plain.schema, source: QUERY })).toEqual(expected);
    expect(await graphql({ schema: sync.schema, source: QUERY })).toEqual(expected);
    expect(sync.sdl).toBe(plain.sdl);
  });
});
