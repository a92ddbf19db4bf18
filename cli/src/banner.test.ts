import { describe, expect, it } from '@jest/globals';
import { routerUrl, subgraphUrl } from '@svc/kit';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startBanner } from './banner.js';
import { loadPlatformConfig } from './config.js';

/**
 * The README's start banner is the one `svc all` prints on default settings (the embedded-mode
 * test compares it with a real start's output too). Runs from cli/dist/src/.
 */
const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');

/** The first fenced block after the sentence that introduces the banner. */
function readmeBanner(readme: string): string {
  const at = readme.indexOf('When it is up it prints');
  if (at < 0) throw new Error('README: the sentence "When it is up it prints" introducing the banner is missing');
  const block = /```\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error('README: no fenced block after "When it is up it prints"');
  return block[1]!;
}

describe('the start banner', () => {
  const config = loadPlatformConfig({});
  const defaults = {
    insight: subgraphUrl(config, 'insight'),
    llm: subgraphUrl(config, 'llm'),
    crawl: subgraphUrl(config, 'crawl'),
    cms: subgraphUrl(config, 'cms'),
    router: routerUrl(config),
    bridge: `http://${config.SVC_HOST}:${config.SERVER_PORT}`,
    dashboard: `http://${config.SVC_HOST}:${config.SVC_DASHBOARD_PORT}/`,
  };

  it('is in the README exactly as `svc all` prints it on default settings', () => {
    const printed = startBanner({ service: 'all', urls: defaults, adminUsername: config.SVC_ADMIN_USERNAME, defaultCredentials: true });
    expect(readmeBanner(README)).toBe(printed);
  });

  it('leads with the dashboard and its login, then the REST docs, GraphiQL and the MCP commands', () => {
    const lines = startBanner({ service: 'all', urls: defaults, adminUsername: 'admin', defaultCredentials: true }).split('\n');
    expect(lines[1]).toMatch(/^ {2}dashboard +http:\/\/127\.0\.0\.1:3000\/ +sign in as admin\/admin/);
    expect(lines[2]).toContain('http://127.0.0.1:8084/apidocs-ui.html');
    expect(lines[3]).toMatch(/GraphiQL +http:\/\/127\.0\.0\.1:4000\/ /);
    expect(lines[4]).toContain('npx svc insight-mcp, npx svc crawl-mcp');
  });

  it('never prints a password: with a configured account it names only the user', () => {
    const text = startBanner({ service: 'all', urls: defaults, adminUsername: 'ops', defaultCredentials: false });
    expect(text).toContain('sign in as ops,');
    expect(text).not.toContain('admin/admin');
  });

  it('lists only what a single service runs (no MCP line outside `svc all`)', () => {
    const text = startBanner({ service: 'router', urls: { router: defaults.router }, adminUsername: 'admin', defaultCredentials: true });
    expect(text).toContain('GraphiQL');
    expect(text).not.toContain('dashboard');
    expect(text).not.toContain('MCP');
  });
});
