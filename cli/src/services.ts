/**
 * Processes `svc` can run. `all` is every service in one process; `edge` the router and the
 * bridge in one (the bridge runs its operations on that router without a socket).
 */
export const SERVICES = ['all', 'edge', 'router', 'bridge', 'insight', 'llm', 'crawl', 'cms', 'worker', 'dashboard', 'insight-mcp', 'crawl-mcp'] as const;
export type Service = (typeof SERVICES)[number];

/** What `svc all` starts in its one process (crawl runs on the crawl service's in-process worker). */
const ALL: readonly Service[] = ['insight', 'llm', 'crawl', 'cms', 'router', 'bridge', 'dashboard'];

/** What `svc edge` starts: the two services every outside request passes, the subgraphs elsewhere. */
const EDGE: readonly Service[] = ['router', 'bridge'];

/** The platform services `svc <service>` starts in its process; the MCP servers start none (they are clients). */
export function servicesRunBy(service: Service): readonly Service[] {
  if (service === 'all') return ALL;
  if (service === 'edge') return EDGE;
  if (service === 'insight-mcp' || service === 'crawl-mcp') return [];
  return [service];
}
