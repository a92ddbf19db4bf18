import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium, watchPage } from './support/browser.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * The two human-facing pages, in a real (offline) Chromium: Swagger UI on the REST bridge and
 * GraphiQL on the router. Every asset comes from npm packages the platform serves itself, so any
 * failed request or console error (a CDN fetch, a CSP violation, a 404) fails the test.
 */
let platform: TestPlatform;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  [platform, browser] = await Promise.all([startTestPlatform(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function openPage(url: string): Promise<{ page: Page; problems: string[] }> {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const problems = watchPage(page);
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  return { page, problems };
}


/**
 * Runs GraphiQL's current tab and waits (up to 30 s on a loaded machine) for its answer to hold
 * `text`. GraphiQL parses the query editor 100 ms after the last change (debounced) and runs what
 * that parse found, so the click waits until the editor's parsed operation name is `operation`
 * (null for an anonymous query). Its React state can lag a moment more and send the previous
 * tab's operation name: the landing page's fetcher corrects that, so one click is enough.
 */
async function runUntilAnswered(page: Page, operation: string | null, text: string): Promise<void> {
  await page.waitForFunction(
    (name) => ((globalThis as any).document.querySelector('.graphiql-query-editor .CodeMirror') as any)?.CodeMirror?.operationName === name,
    operation,
    { timeout: 30_000 },
  );
  await page.locator('.graphiql-execute-button').click();
  // The response editor's value, not its rendered lines: CodeMirror draws only the lines in view.
  await page.waitForFunction(
    (wanted) => String(((globalThis as any).document.querySelector('.graphiql-response .CodeMirror') as any)?.CodeMirror?.getValue() ?? '').includes(wanted),
    text,
    { timeout: 30_000 },
  );
}

describe('Swagger UI at /apidocs-ui.html', () => {
  /** Expands an operation, switches on "Try it out" if it is not already on, and returns its block. */
  async function operation(page: Page, method: string, path: string): Promise<Locator> {
    const block = page.locator(`.opblock.opblock-${method.toLowerCase()}`).filter({
      has: page.locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replace(/[{}]/g, '\\$&')}$`) }),
    });
    await expect(block.count()).resolves.toBe(1);
    if (!(await block.locator('.opblock-body').isVisible())) await block.locator('.opblock-summary').first().click();
    const toggle = block.locator('.try-out__btn');
    if ((await toggle.innerText()).trim() === 'Try it out') await toggle.click();
    await block.locator('.execute').waitFor();
    return block;
  }

  async function execute(block: Locator): Promise<{ status: string; body: string }> {
    await block.locator('.execute').click();
    const live = block.locator('.live-responses-table .response').first();
    const body = live.locator('.response-col_description pre').first();
    await body.waitFor();
    return { status: (await live.locator('.response-col_status').innerText()).trim(), body: await body.innerText() };
  }

  /** A screenshot of the top of an operation block: its parameters and the live response. */
  async function shoot(page: Page, block: Locator, path: string): Promise<void> {
    const box = await block.evaluate((node: any) => {
      const rect = node.getBoundingClientRect();
      const view = globalThis as any;
      return { x: rect.left + view.scrollX, y: rect.top + view.scrollY, width: rect.width, height: Math.min(rect.height, 1100) };
    });
    await page.screenshot({ path, fullPage: true, clip: box });
  }

  it('renders every route of the table and runs GET /api/v1/contents/{contentSlug} and POST /api/v1/auth/token', async () => {
    const { page, problems } = await openPage(`${platform.bridge}/apidocs-ui.html`);
    await page.locator('.opblock').first().waitFor();
    await page.screenshot({ path: '/tmp/apidocs.png' });
    await expect(page.locator('.info .title').innerText()).resolves.toContain('Svc Platform');
    // Every operation of /openapi.json (generated from the bridge's route table) is rendered.
    const spec = (await (await fetch(`${platform.bridge}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(spec.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    const rendered = await page.locator('.opblock-summary').evaluateAll((nodes: any[]) =>
      nodes.map((node) => `${node.querySelector('.opblock-summary-method').textContent} ${node.querySelector('.opblock-summary-path').textContent.replace(/\u200b/g, '')}`),
    );
    expect(rendered.sort()).toEqual(documented.sort());
    expect(rendered).toEqual(expect.arrayContaining(['GET /api/v1/contents/{contentSlug}', 'POST /api/v1/auth/token']));

    const deliver = await operation(page, 'GET', '/api/v1/contents/{contentSlug}');
    await deliver.locator('tr[data-param-name="contentSlug"] input').fill('welcome');
    await deliver.locator('tr[data-param-name="x-svc-site-key" i] input').fill('demo');
    const delivered = await execute(deliver);
    expect(delivered.status).toBe('200');
    expect(delivered.body).toContain('"slug": "welcome"');
    await shoot(page, deliver, '/tmp/apidocs-contents.png');

    const login = await operation(page, 'POST', '/api/v1/auth/token');
    const body = login.locator('textarea.body-param__text');
    expect(JSON.parse(await body.inputValue())).toMatchObject({ username: 'admin' });
    await body.fill(JSON.stringify({ username: 'admin', password: 'test-admin-password' }, null, 2));
    const issued = await execute(login);
    expect(issued.status).toBe('200');
    expect(issued.body).toContain('"accessToken"');
    await shoot(page, login, '/tmp/apidocs-token.png');

    expect(problems).toEqual([]);
  });
});

describe('GraphiQL landing page of the router', () => {
  it('renders, loads the schema into the docs explorer and runs a query', async () => {
    const { page, problems } = await openPage(platform.router.replace(/\/graphql$/, '/'));
    await page.locator('.graphiql-container .graphiql-query-editor .CodeMirror').waitFor();

    // A new tab of its own (the opening tabs carry variables). The query editor is CodeMirror 5:
    // select all and type over it (brackets auto-close, so type no "}").
    await page.locator('.graphiql-tab-add').click();
    await page.locator('.graphiql-tab').nth(6).waitFor();
    await page.locator('.graphiql-query-editor .CodeMirror').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('{ __typename ');
    const editor = page.locator('.graphiql-query-editor .CodeMirror');
    await expect(editor.evaluate((node: any) => node.CodeMirror.getValue())).resolves.toBe('{ __typename }');
    await runUntilAnswered(page, null, '__typename');
    const response = page.locator('.graphiql-response .CodeMirror');
    await expect(response.innerText()).resolves.toContain('"__typename": "Query"');
    expect(JSON.parse(await response.evaluate((node: any) => node.CodeMirror.getValue()))).toEqual({ data: { __typename: 'Query' } });

    // The page's fetcher corrects an operation name the document does not define (GraphiQL's
    // state can still hold the previous tab's right after a switch), so the router answers it.
    const run = (params: string) => page.evaluate(`(async () => { const r = await fetcher(${params}, { headers: {} }); if (r && r[Symbol.asyncIterator]) { for await (const x of r) return x; } return r; })()`);
    const stale = await run(`{ query: '{ __typename }', operationName: 'GetAToken' }`);
    expect(stale).toEqual({ data: { __typename: 'Query' } });
    const renamed = await run(`{ query: '# a query named Probe\\nquery Probe { __typename }', operationName: 'GetAToken' }`);
    expect(renamed).toEqual({ data: { __typename: 'Query' } });

    await page.locator('[aria-label="Show Documentation Explorer"]').click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.locator('.graphiql-doc-explorer-root-type', { hasText: 'Query' }).first().waitFor();
    await docs.locator('a.graphiql-doc-explorer-type-name', { hasText: /^Query$/ }).first().click();
    await docs.locator('.graphiql-doc-explorer-title', { hasText: /^Query$/ }).waitFor();
    await expect(docs.locator('.graphiql-doc-explorer-field-name').count()).resolves.toBeGreaterThan(0);

    await page.screenshot({ path: '/tmp/graphiql.png' });
    expect(problems).toEqual([]);
  });

  it('opens on tabs of real operations with the token explained in the headers pane; a tab runs as it stands once the token is in', async () => {
    const { page, problems } = await openPage(platform.router.replace(/\/graphql$/, '/'));
    const tabs = page.locator('.graphiql-tab');
    await tabs.nth(5).waitFor();
    expect((await tabs.allInnerTexts()).map((t) => t.trim())).toEqual(['GetAToken', 'DemoContent', 'StartAnalysis', 'LatestReport', 'CrawlJobsOverview', 'BudgetsOverview']);
    const editorText = () => page.locator('.graphiql-query-editor .CodeMirror').evaluate((node: any) => node.CodeMirror.getValue() as string);
    await expect(editorText()).resolves.toMatch(/^# 1 · Get a token\. Press ▶/);
    const headers = page.locator('.graphiql-editor-tool .CodeMirror').filter({ hasText: 'Authorization' });
    await headers.waitFor();
    await expect(headers.innerText()).resolves.toContain('Bearer <paste accessToken from tab 1>');
    await page.screenshot({ path: '/tmp/graphiql-tabs.png' });

    // Tab 2 with a real token in its headers pane: the demo site's published page, its drafts and who the token is.
    await tabs.nth(1).click();
    await expect(editorText()).resolves.toContain('query DemoContent');
    const token = await platform.token({ subject: 'root' });
    await headers.evaluate((node: any, bearer: string) => node.CodeMirror.setValue(JSON.stringify({ Authorization: `Bearer ${bearer}`, 'X-Svc-Tenant-Id': 'demo', 'X-Svc-Site-Key': 'demo' })), token);
    await runUntilAnswered(page, 'DemoContent', 'viewer');
    const answer = JSON.parse(await page.locator('.graphiql-response .CodeMirror').evaluate((node: any) => node.CodeMirror.getValue() as string));
    expect(answer.errors).toBeUndefined();
    expect(answer.data.deliveredContent.content.slug).toBe('welcome');
    expect(answer.data.contents.map((c: { slug: string }) => c.slug)).toEqual(expect.arrayContaining(['welcome', 'pricing', 'about']));
    expect(answer.data.viewer.subject).toBe('root');
    expect(problems).toEqual([]);
  });
});
