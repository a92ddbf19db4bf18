import { describe, expect, it } from '@jest/globals';
import { buildSchema, parse, validate } from 'graphql';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_HEADERS, loadGraphiqlTabs, parseGraphiqlTabs } from './graphiql-tabs.js';
import { landingPageRoutes } from './landing-page.js';

/** GraphiQL's opening tabs: real operations of the platform, each explained, valid against the supergraph. */
const SUPERGRAPH = readFileSync(fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url)), 'utf8');

describe('GraphiQL tabs', () => {
  it('opens on getting a token, the demo content, an analysis and its report, crawl jobs and budgets', async () => {
    const tabs = await loadGraphiqlTabs();
    const names = tabs.map((tab) => /(?:query|mutation) (\w+)/.exec(tab.query)?.[1]);
    expect(names).toEqual(['GetAToken', 'DemoContent', 'StartAnalysis', 'LatestReport', 'CrawlJobsOverview', 'BudgetsOverview']);
    expect(tabs[0]!.query).toMatch(/^# 1 · Get a token\. Press ▶/);
    expect(tabs[0]!.query).not.toContain("GraphiQL's opening tabs"); // the file's own header stays out
    expect(JSON.parse(tabs[0]!.variables!)).toEqual({ username: 'admin', password: 'admin' });
    expect(JSON.parse(tabs[2]!.variables!).input.prompt).toContain('Why did revenue drop last week?');
    expect(tabs[1]!.variables).toBeUndefined();
    for (const tab of tabs) expect(tab.headers).toBe(DEFAULT_HEADERS);
    expect(JSON.parse(DEFAULT_HEADERS)).toMatchObject({ Authorization: 'Bearer <paste accessToken from tab 1>', 'X-Svc-Tenant-Id': 'demo' });
  });

  it('are valid operations of the supergraph the router serves', async () => {
    const schema = buildSchema(SUPERGRAPH, { assumeValidSDL: true });
    for (const tab of await loadGraphiqlTabs()) expect(validate(schema, parse(tab.query)).map((e) => e.message)).toEqual([]);
  });

  it('names the operation whose variables line is not JSON', () => {
    expect(() => parseGraphiqlTabs('# variables: {nope}\nquery Broken { __typename }\n')).toThrow('the variables line above Broken is not JSON: {nope}');
  });

  it('are embedded in the page so no text can close its script', async () => {
    const [page] = landingPageRoutes('/graphql', [{ query: '# </script><script>alert(1)</script>\n{ __typename }\n' }]);
    let html = '';
    await page!.handle({ url: '/' } as never, { setHeader: () => undefined, end: (body: string) => (html = body) } as never);
    expect(html).not.toContain('</script><script>alert(1)');
    expect(html).toContain('\\u003c/script>');
    expect(html).toContain("defaultEditorToolsVisibility: 'headers'");
  });
});
