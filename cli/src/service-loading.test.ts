import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * `svc <service>` loads the code of the services it runs and no other (platform.ts imports each
 * service's entry when it starts it; the config slices it validates are light modules). What
 * starting the platform module and validating the configuration load, in a fresh Node process.
 */
async function modulesLoadedBy(script: string): Promise<string[]> {
  const hook = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });
    ${script}
    process.stdout.write(JSON.stringify(seen));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', hook], { cwd: fileURLToPath(new URL('../..', import.meta.url)), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as string[];
}

const SERVICE_CODE = [/\/subgraphs\/(cms|crawl|insight|llm)\/dist\/src\/(index|[a-z]+-subgraph|schema\/.*)\.js$/, /\/router\/dist\//, /\/rest-bridge\/dist\//, /\/dashboard\/dist\//, /node_modules\/(jsdom|playwright-core|@apollo\/gateway|gpt-tokenizer)\//];

describe('service code loads only where it runs', () => {
  it('the platform module and the configuration load no service\'s code', async () => {
    const loaded = await modulesLoadedBy(`
      const { loadPlatformConfig } = await import('${new URL('./config.js', import.meta.url).href}');
      await import('${new URL('./platform.js', import.meta.url).href}');
      loadPlatformConfig({ DATABASE_URL: 'postgres://localhost/x', SVC_JWT_SECRET: 'a-secret-long-enough-for-hs256-signing-00' }, 'cms');
    `);
    // The check can fail: the config slices are loaded, from each service's package.
    expect(loaded.some((url) => url.endsWith('/subgraphs/crawl/dist/src/config.js'))).toBe(true);
    expect(loaded.filter((url) => SERVICE_CODE.some((pattern) => pattern.test(url)))).toEqual([]);
  }, 60_000);

  it('a service\'s entry holds its service, not its MCP server (which `svc crawl-mcp` and `svc insight-mcp` load)', async () => {
    const loaded = await modulesLoadedBy(`await import('@svc/crawl'); await import('@svc/insight');`);
    expect(loaded.some((url) => url.endsWith('/subgraphs/crawl/dist/src/crawl-subgraph.js'))).toBe(true);
    expect(loaded.filter((url) => /\/dist\/src\/mcp\/|node_modules\/(playwright-core|@modelcontextprotocol)\//.test(url))).toEqual([]);
  }, 60_000);

  it('a service\'s entry brings its code (what the check above would see if platform.ts imported it)', async () => {
    const loaded = await modulesLoadedBy(`await import('@svc/cms');`);
    expect(loaded.filter((url) => SERVICE_CODE.some((pattern) => pattern.test(url))).length).toBeGreaterThan(0);
  }, 60_000);
});
