import { describe, expect, it } from '@jest/globals';

/** What a subgraph gives the shared conformance suite. */
export interface ConformanceTarget {
  name: string;
  /** Base URL of the subgraph (without /graphql). */
  baseUrl: () => string;
  /** A query that returns data only to an authenticated caller. */
  protectedQuery: string;
  /** A valid token that may read `entity`. */
  token: () => Promise<string>;
  /** The checked-in SDL snapshot it must serve as `_service.sdl`. */
  snapshotSdl: () => Promise<string>;
  /** An entity: a representation that exists and the field to check on it; omit for subgraphs without entities. */
  entity?: () => Promise<{ representation: Record<string, unknown>; selection: string; expect: Record<string, unknown> }>;
  /** A representation of the same type that does not exist. */
  missingRepresentation?: Record<string, unknown>;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
}

/**
 * The one suite every subgraph runs: health, readiness, anonymous refusal, the error shape,
 * `_service` matching its snapshot, and `_entities` (found, missing with ENTITY_NOT_FOUND, anonymous).
 */
export function describeSubgraphConformance(target: ConformanceTarget): void {
  const graphql = () => `${target.baseUrl()}/graphql`;
  describe(`${target.name} subgraph conformance`, () => {
    it('answers health and readiness', async () => {
      const health = await fetch(`${target.baseUrl()}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', service: target.name });
      const ready = await fetch(`${target.baseUrl()}/ready`);
      expect(ready.status).toBe(200);
    });

    it('refuses anonymous callers and invalid tokens with UNAUTHENTICATED', async () => {
      const anonymous = await post(graphql(), { query: target.protectedQuery });
      expect(anonymous.body.data ?? null).toBeNull();
      expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      const forged = await post(graphql(), { query: target.protectedQuery }, { authorization: 'Bearer not.a.jwt' });
      expect(forged.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
    });

    it('reports errors in the GraphQL shape with a typed code', async () => {
      const reply = await post(graphql(), { query: '{ thisFieldDoesNotExist }' }, { authorization: `Bearer ${await target.token()}` });
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('thisFieldDoesNotExist'), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
      const notJson = await fetch(graphql(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
      expect(notJson.status).toBe(400);
    });

    it('serves its SDL as _service, identical to the checked-in snapshot', async () => {
      const reply = await post(graphql(), { query: '{ _service { sdl } }' });
      expect(reply.body.errors).toBeUndefined();
      expect(reply.body.data._service.sdl.trim()).toBe((await target.snapshotSdl()).trim());
    });

    if (target.entity) {
      it('resolves _entities for authorised callers, a missing one to null with ENTITY_NOT_FOUND at its index, and refuses anonymous ones', async () => {
        const { representation, selection, expect: expected } = await target.entity!();
        const typename = representation.__typename as string;
        const query = `query($r: [_Any!]!) { _entities(representations: $r) { ... on ${typename} { ${selection} } } }`;
        const reps = [representation, target.missingRepresentation ?? { ...representation, id: '00000000-0000-0000-0000-000000000000' }];
        const authorised = await post(graphql(), { query, variables: { r: reps } }, { authorization: `Bearer ${await target.token()}` });
        expect(authorised.body.data._entities[0]).toMatchObject(expected);
        expect(authorised.body.data._entities[1]).toBeNull();
        // Never a bare null: the router moves this error to the field that referenced the entity.
        expect(authorised.body.errors).toEqual([expect.objectContaining({ path: ['_entities', 1], extensions: expect.objectContaining({ code: 'ENTITY_NOT_FOUND', status: 404 }) })]);
        const anonymous = await post(graphql(), { query, variables: { r: reps } });
        expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
      });
    }
  });
}
