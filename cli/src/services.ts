/**
 * Processes `svc` can run. `all` is every service in one process; `graph` the router with every
 * subgraph and the bridge in one (what docker/compose.yaml runs per replica: the router calls its
 * subgraphs, and the bridge the router, without a socket); `edge` the router and the bridge in one,
 * the subgraphs elsewhere.
 */
export const SERVICES = ['all', 'graph', 'edge', 'router', 'bridge', 'insight', 'llm', 'crawl', 'cms', 'worker', 'dashboard', 'insight-mcp', 'crawl-mcp'] as const;
export type Service = (typeof SERVICES)[number];

/** What `svc all` starts in its one process (crawl runs on the crawl service's in-process worker). */
const ALL: readonly Service[] = ['insight', 'llm', 'crawl', 'cms', 'router', 'bridge', 'dashboard'];

/**
 * What `svc graph` starts: the whole federated graph and its REST face, without the dashboard.
 * Crawl runs and analysis jobs run where SVC_CRAWL_WORKER and SVC_INSIGHT_WORKER say (compose:
 * on `worker` containers only).
 */
const GRAPH: readonly Service[] = ['insight', 'llm', 'crawl', 'cms', 'router', 'bridge'];

/** What `svc edge` starts: the two services every outside request passes, the subgraphs elsewhere. */
const EDGE: readonly Service[] = ['router', 'bridge'];

/** The platform services `svc <service>` starts in its process; the MCP servers start none (they are clients). */
export function servicesRunBy(service: Service): readonly Service[] {
  if (service === 'all') return ALL;
  if (service === 'graph') return GRAPH;
  if (service === 'edge') return EDGE;
  if (service === 'insight-mcp' || service === 'crawl-mcp') return [];
  return [service];
}
