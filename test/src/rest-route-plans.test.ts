import { describe, expect, it } from '@jest/globals';
import { ROUTES } from '@svc/rest-bridge';
import { loadOperations } from '@svc/kit';
import { parse } from 'graphql';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The README's rule for partial REST answers names, per route, what can be missing from one: a
 * route whose operation the router answers from one subgraph is partial only when a nullable
 * field of that subgraph failed; one reaching a second subgraph can also lose that subgraph's
 * part (an action's target, say). Today every route is of the first kind; this test plans each
 * route's operation as the router does and keeps it so, or makes whoever adds a second subgraph
 * to a route say which members can then be null (the route's description and the README).
 */
const require = createRequire(import.meta.url);
const { Supergraph, operationFromDocument } = require('@apollo/federation-internals');
const { QueryPlanner } = require('@apollo/query-planner');

const SUPERGRAPH = fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url));
const OPERATIONS_DIR = fileURLToPath(new URL('../../../schema/operations/', import.meta.url));

interface PlanNode { kind: string; serviceName?: string; node?: PlanNode; nodes?: PlanNode[] }
const fetchesOf = (node: PlanNode | undefined): string[] => (!node ? [] : node.kind === 'Fetch' ? [node.serviceName!] : [...(node.nodes ?? []), ...(node.node ? [node.node] : [])].flatMap(fetchesOf));

describe('REST routes and the subgraphs their operations reach', () => {
  it('plans every route\'s operation as one fetch from one subgraph', async () => {
    const supergraph = Supergraph.build(readFileSync(SUPERGRAPH, 'utf8'));
    const planner = new QueryPlanner(supergraph);
    const operations = await loadOperations(OPERATIONS_DIR);
    const reached = ROUTES.map((route) => {
      const operation = operationFromDocument(supergraph.apiSchema(), parse(operations.get(route.operation)!), { operationName: route.operation });
      return `${route.method} ${route.path}: ${fetchesOf(planner.buildQueryPlan(operation).node).join(', ')}`;
    });
    expect(reached.length).toBeGreaterThan(40);
    expect(reached.filter((line) => line.includes(','))).toEqual([]);
  });
});
