import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, seriousA11yViolations, watchPage } from './support/browser.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { startTestPlatform, TEST_MASTER_KEY, type TestPlatform } from './support/platform.js';

/**
 * The dashboard in headless Chromium against the whole platform: sign in, start an analysis and
 * watch its steps stream in, reload mid-run without duplicates, read the report with its charts,
 * approve one proposal and reject another, see a second reviewer's late decision answered 409,
 * text from the model shown as text, choose a tenant, sign out; the layout at 1280 px and 390 px
 * wide (no sideways scrolling, charts inside their cards, axe-core finding no serious or critical
 * violation under the page's own CSP). The model is a local fake that answers slowly enough
 * (150 ms a call) for a person to watch. Screenshots go to test/output/dashboard/.
 */

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'output', 'dashboard');
const PROMPT = 'Is our model budget enough, and is the pricing page hurting conversion?';
let platform: TestPlatform;
let upstream: Awaited<ReturnType<typeof startFakeOpenAi>>;
let browser: Browser;
let db: pg.Client;
let dashboard: string;
let admin: string;
const problems: string[] = [];

async function signIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  problems.push(...watchPage(page));
  await page.goto(dashboard);
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill('test-admin-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

const stepNumbers = (page: Page) => page.locator('ol.steps li').evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-seq'))));

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  upstream = await startFakeOpenAi({ delayMs: 150 });
  const config = await writeGatewayConfig({
    providers: [{ name: 'slow', kind: 'openai-compatible', baseUrl: upstream.url }],
    models: [{ name: 'slow-model', provider: 'slow', inputPerMTok: 5, outputPerMTok: 15 }],
    aliases: { 'auto-route': ['slow-model'], 'fast-track': ['slow-model'], 'deep-reasoning': ['slow-model'] },
  });
  platform = await startTestPlatform({ SVCLLM_CONFIG: config, LLM_MODEL_NAME: 'slow-model' });
  dashboard = platform.urls.dashboard!;
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  admin = await platform.token({ subject: 'root' });
  // A tiny budget the agent's thinking outgrows, and a draft waiting on the pricing page: the report proposes both.
  await gql(platform.router, 'mutation { setBudget(input: {agentCode: "insight", monthlyBudgetUsd: 0.0001, hardLimitEnabled: false}) { agentCode } }', {}, { authorization: `Bearer ${TEST_MASTER_KEY}` });
  const contents = await gql(platform.router, '{ contents(siteKey: "demo") { id slug } }', {}, { authorization: `Bearer ${admin}` });
  const pricing = contents.body.data.contents.find((c: { slug: string }) => c.slug === 'pricing');
  await gql(platform.router, 'mutation($id: ID!) { updateContentDraft(id: $id, input: {title: "Pricing, simpler"}) { latestVersion } }', { id: pricing.id }, { authorization: `Bearer ${admin}` });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await db?.end();
  await platform?.close();
  await upstream?.close();
});

describe('the analysis dashboard', () => {
  let reviewer: Page;
  let second: Page;
  let jobId: string;

  it('serves its page with a strict Content-Security-Policy and keeps the token from scripts', async () => {
    const page = await call(dashboard);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    reviewer = await signIn(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
    expect(await reviewer.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie)).toBe('');
    const cookies = await reviewer.context().cookies();
    expect(cookies.find((c) => c.name === 'svc_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // This platform has its own admin password: no default-credentials warning.
    expect(await reviewer.locator('#banner').isHidden()).toBe(true);
    expect((await call(`${dashboard}session`)).body).toMatchObject({ defaultCredentials: false });
  });

  it('shows the steps while the agent works, and resumes after a reload without duplicates', async () => {
    await reviewer.getByLabel('Analysis topic').fill(PROMPT);
    await reviewer.getByRole('button', { name: 'Start analysis' }).click();
    await reviewer.locator('ol.steps li').first().waitFor({ timeout: 10_000 });
    jobId = /job=([0-9a-f-]{36})/.exec(reviewer.url())![1]!;
    const status = (await db.query('select status from insight.job where id = $1', [jobId])).rows[0].status;
    expect(['PENDING', 'RUNNING']).toContain(status); // steps were on screen before the job ended
    await reviewer.locator('ol.steps li').nth(3).waitFor();
    await reviewer.screenshot({ path: join(OUT, 'canvas.png'), fullPage: true });
    await reviewer.reload();
    await reviewer.locator('ol.steps li').nth(4).waitFor({ timeout: 15_000 });
    await reviewer.locator('.badge.COMPLETED').first().waitFor({ timeout: 60_000 });
    const seqs = await stepNumbers(reviewer);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const written = (await db.query('select count(*)::int as n from insight.job_step where job_id = $1', [jobId])).rows[0].n;
    expect(seqs.length).toBe(written);
  });

  it('draws the report with its charts', async () => {
    await reviewer.locator('.report .judgment').waitFor();
    expect((await reviewer.locator('.report .judgment').textContent())!.length).toBeGreaterThan(20);
    const charts = reviewer.locator('.chart canvas');
    await charts.first().waitFor();
    expect(await charts.count()).toBeGreaterThan(0);
    type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    const inked = await charts.first().evaluate((canvas) => {
      const c = canvas as unknown as Canvas;
      const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
      return painted;
    });
    expect(inked).toBeGreaterThan(500);
    expect(await reviewer.locator('.chart[data-kind=SERIES]').count()).toBeGreaterThan(0);
    // The waterfall of the change: the value before, the rest nothing explains, the value now.
    const rows = await reviewer.locator('.report .waterfall .waterfall-rows li').allInnerTexts();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows[0]).toMatch(/^before/);
    expect(rows.at(-1)).toMatch(/^now/);
    await reviewer.locator('.report').screenshot({ path: join(OUT, 'report.png') });
    await reviewer.getByRole('region', { name: 'Charts and findings' }).screenshot({ path: join(OUT, 'charts.png') });
  });

  it('leads with the answer: report and actions above one-line steps; charts inside their cards with named series and values on hover', async () => {
    const top = async (selector: string) => (await reviewer.locator(selector).first().boundingBox())!.y;
    expect(await top('.report .judgment')).toBeLessThan(await top('.actions'));
    expect(await top('.report .waterfall')).toBeLessThan(await top('.actions'));
    expect(await top('.actions')).toBeLessThan(await top('.charts figure.chart'));
    expect(await top('.charts figure.chart')).toBeLessThan(await top('ol.steps'));
    // Steps are one line each; details open on demand.
    const heights = await reviewer.locator('ol.steps li').evaluateAll((items) => items.map((li) => (li as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThan(40);
    const first = reviewer.locator('ol.steps li details').first();
    expect(await first.getAttribute('open')).toBeNull();
    await first.locator('summary').click();
    expect(await first.getAttribute('open')).toBe('');
    await first.locator('summary').click();
    // Every chart (canvas and legend) fits its card.
    const overflow = await reviewer.locator('figure.chart').evaluateAll((figures) => figures.map((f) => {
      const box = (f as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect();
      const inner = Array.from((f as unknown as { querySelectorAll(s: string): ArrayLike<{ getBoundingClientRect(): { right: number } }> }).querySelectorAll('canvas, .u-legend'));
      return Math.max(...inner.map((e) => e.getBoundingClientRect().right)) - box.right;
    }));
    expect(overflow.length).toBeGreaterThan(0);
    expect(overflow.filter((px) => px > 0)).toEqual([]);
    const forecast = reviewer.locator('.chart[data-kind=SERIES]').first();
    const legend = forecast.locator('.u-legend');
    const labels = await legend.locator('.u-label').allInnerTexts();
    expect(labels).toEqual(expect.arrayContaining(['Date']));
    expect(labels.some((l) => l.startsWith('Actual'))).toBe(true);
    await forecast.scrollIntoViewIfNeeded();
    // Away from the chart the legend reads each series' latest value; under the cursor, the hovered point's.
    const resting = await legend.locator('.u-value').allInnerTexts();
    expect(resting[0]).toMatch(/\d/);
    expect(resting[1]).toMatch(/\d/); // the series' latest value
    const canvas = (await forecast.locator('canvas').boundingBox())!;
    await reviewer.mouse.move(canvas.x + canvas.width * 0.2, canvas.y + canvas.height / 2);
    await reviewer.mouse.move(canvas.x + canvas.width * 0.25, canvas.y + canvas.height / 2, { steps: 3 });
    const hovered = await eventually(async () => {
      const values = await legend.locator('.u-value').allInnerTexts();
      return values[0] !== resting[0] && /\d/.test(values[0]!) && /\d/.test(values[1]!) ? values : undefined;
    }, 5_000, 'the legend to show the date and value under the cursor');
    expect(hovered[0]).not.toBe(resting[0]);
    // Redrawn at the card's new width when the window narrows.
    const before = (await forecast.locator('canvas').boundingBox())!.width;
    await reviewer.setViewportSize({ width: 1000, height: 800 });
    await eventually(async () => (await forecast.locator('canvas').boundingBox())!.width !== before, 5_000, 'the chart to be redrawn at the new width');
    const after = await forecast.evaluate((f) => [(f as unknown as { getBoundingClientRect(): { right: number } }).getBoundingClientRect().right, (f as unknown as { querySelector(s: string): { getBoundingClientRect(): { right: number } } }).querySelector('canvas').getBoundingClientRect().right]);
    expect(after[1]!).toBeLessThanOrEqual(after[0]!);
    await reviewer.setViewportSize({ width: 1280, height: 800 });
  });

  it('approves one proposal and rejects another with comments; a late second reviewer sees 409', async () => {
    second = await signIn(await browser.newContext({ viewport: { width: 600, height: 900 } }));
    await second.goto(`${dashboard}#job=${jobId}`);
    const budgetCard = (page: Page) => page.locator('.actions article.card', { hasText: 'BUDGET_CHANGE' });
    const contentCard = (page: Page) => page.locator('.actions article.card', { hasText: 'CONTENT_PUBLISH' });
    await budgetCard(second).getByRole('button', { name: 'Approve' }).waitFor();

    await budgetCard(reviewer).getByLabel(/Comment on/).fill('Raise it, thinking is worth it');
    await budgetCard(reviewer).getByRole('button', { name: 'Approve' }).click();
    await budgetCard(reviewer).locator('.badge.EXECUTED').waitFor({ timeout: 30_000 });
    expect(await budgetCard(reviewer).textContent()).toContain('Raise it, thinking is worth it');

    await contentCard(reviewer).getByLabel(/Comment on/).fill('Not before the copy review');
    await contentCard(reviewer).getByRole('button', { name: 'Reject' }).click();
    await contentCard(reviewer).locator('.badge.REJECTED').waitFor();

    await budgetCard(second).getByRole('button', { name: 'Approve' }).click();
    await budgetCard(second).locator('.result.conflict').waitFor();
    expect(await budgetCard(second).locator('.result.conflict').textContent()).toContain('409');
    await reviewer.locator('.actions').screenshot({ path: join(OUT, 'action-cards.png') });
    await second.screenshot({ path: join(OUT, 'narrow-409.png'), fullPage: true });

    const stored = (await db.query('select kind, status, review_comment from insight.action where job_id = $1 order by kind', [jobId])).rows;
    expect(stored).toEqual([
      { kind: 'BUDGET_CHANGE', status: 'EXECUTED', review_comment: 'Raise it, thinking is worth it' },
      // The demo's pricing version went live the day conversion fell: putting it back in the draft waits.
      { kind: 'CONTENT_DRAFT_UPDATE', status: 'PROPOSED', review_comment: null },
      { kind: 'CONTENT_PUBLISH', status: 'REJECTED', review_comment: 'Not before the copy review' },
    ]);
  });

  for (const width of [1280, 390]) {
    it(`reads well at ${width} px wide: no sideways scrolling, no serious or critical axe violation (CSP unchanged)`, async () => {
      const page = await signIn(await browser.newContext({ viewport: { width, height: 900 } }));
      await page.goto(`${dashboard}#job=${jobId}`);
      await page.locator('.report .judgment').waitFor();
      await page.locator('.chart canvas').first().waitFor();
      const sizes = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
        return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
      });
      expect(sizes.scrollWidth).toBeLessThanOrEqual(sizes.clientWidth);
      expect(await seriousA11yViolations(page)).toEqual([]);
      expect((await page.evaluate(() => (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('script:not([src])').length))).toBe(0);
      await page.screenshot({ path: join(OUT, `report-${width}.png`), fullPage: true });
      await page.getByRole('region', { name: 'Report' }).screenshot({ path: join(OUT, `report-section-${width}.png`) });
      await page.getByRole('region', { name: 'Proposed actions' }).screenshot({ path: join(OUT, `actions-${width}.png`) });
      await page.context().close();
    });
  }

  it('lets a person whose token grants every tenant choose one, demo first, and keeps it for the session', async () => {
    const tenant = reviewer.getByRole('form', { name: 'Tenant' }).getByLabel('Tenant');
    expect(await tenant.inputValue()).toBe('demo');
    expect(await reviewer.locator('#tenant-options option').evaluateAll((o) => o.map((x) => (x as unknown as { value: string }).value))).toEqual(['demo']);
    await tenant.fill('acme');
    await reviewer.getByRole('button', { name: 'Use' }).click();
    const tenantNow = async () => ((await reviewer.evaluate(() => fetch('/session').then((r) => r.json()))) as { tenant: string }).tenant;
    await eventually(async () => (await tenantNow()) === 'acme', 5_000, 'tenant acme');
    await reviewer.reload();
    await reviewer.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await reviewer.getByRole('form', { name: 'Tenant' }).getByLabel('Tenant').inputValue()).toBe('acme');
    await reviewer.getByRole('form', { name: 'Tenant' }).getByLabel('Tenant').fill('demo');
    await reviewer.getByRole('button', { name: 'Use' }).click();
    await eventually(async () => (await tenantNow()) === 'demo', 5_000, 'tenant demo');
    await reviewer.goto(`${dashboard}#job=${jobId}`);
  });

  it('renders text from the model and from people as text, never as HTML', async () => {
    const payload = '<img src=x onerror="window.__xss=1">';
    await db.query(`update insight.job set report = jsonb_set(report, '{judgment}', to_jsonb($2::text)), prompt = $2 where id = $1`, [jobId, payload]);
    await reviewer.reload();
    await reviewer.locator('.report .judgment').waitFor();
    expect(await reviewer.locator('.report .judgment').textContent()).toBe(payload);
    expect(await reviewer.locator('img[src=x]').count()).toBe(0);
    expect(await reviewer.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
  });

  it('shows the analysis agent\'s budget from the gateway', async () => {
    const budget = reviewer.getByRole('region', { name: 'Analysis budget' });
    await budget.locator('dl.budget').waitFor();
    expect(await budget.textContent()).toMatch(/Used this month\$\d/);
  });

  it('signs out with a clear message, and the session is gone', async () => {
    await reviewer.getByRole('button', { name: 'Sign out' }).click();
    await reviewer.getByText('You signed out.').waitFor();
    const cookies = await reviewer.context().cookies();
    expect(cookies.find((c) => c.name === 'svc_session')).toBeUndefined();
    await reviewer.reload();
    await reviewer.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(problems.filter((p) => !/HTTP (401|409)/.test(p))).toEqual([]);
  });
});
