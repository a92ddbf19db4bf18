/**
 * What `svc` prints once everything listens. For `svc all` it leads with what a person opens
 * first (the dashboard and its login), then the REST docs, GraphiQL and the MCP commands, one
 * line each on what to try; the plain service URLs follow. The README shows this text for the
 * default ports and a test compares the two (banner.test.ts), so they cannot drift.
 */
export interface BannerInput {
  service: string;
  urls: Partial<Record<'bridge' | 'router' | 'dashboard' | 'insight' | 'llm' | 'crawl' | 'cms', string>>;
  /** The local admin account's name. */
  adminUsername: string;
  /** The default admin/admin account is in use (the banner then says so, as the dashboard does). */
  defaultCredentials: boolean;
}

const ROLE = {
  router: 'the federated graph',
  bridge: 'the REST paths of the spec',
  insight: 'analysis subgraph (callers need credentials)',
  llm: 'model gateway subgraph (also GET /metrics, master key)',
  crawl: 'crawl subgraph',
  cms: 'content subgraph',
} as const;

const row = (name: string, where: string, what: string) => `  ${name.padEnd(10)} ${where.padEnd(40)} ${what}`.trimEnd();

export function startBanner({ service, urls, adminUsername, defaultCredentials }: BannerInput): string {
  const lines: string[] = [];
  if (urls.dashboard) {
    const login = defaultCredentials ? 'sign in as admin/admin' : `sign in as ${adminUsername}`;
    lines.push(row('dashboard', urls.dashboard, `${login}, ask "Why did revenue drop last week?"`));
  }
  if (urls.bridge) lines.push(row('REST docs', `${urls.bridge}/apidocs-ui.html`, 'every REST path; "Try it out" works offline'));
  if (urls.router) lines.push(row('GraphiQL', urls.router.replace(/\/graphql$/, '/'), 'example operations in tabs; press play'));
  if (service === 'all') {
    lines.push(row('MCP', 'npx svc insight-mcp, npx svc crawl-mcp', 'tools for desktop assistants (README: MCP tools)'));
  }
  const services = (['router', 'bridge', 'insight', 'llm', 'crawl', 'cms'] as const).filter((name) => urls[name]);
  if (services.length) {
    lines.push('', '  services:');
    for (const name of services) lines.push(row(name, urls[name]!, ROLE[name]));
  }
  return `Svc Platform (${service}) is up:\n${lines.join('\n')}\n`;
}
