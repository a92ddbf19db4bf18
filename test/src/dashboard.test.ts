import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { generateDaily, generateLeaves } from '@svc/insight/engine/synthetic-series';
import { launchChromium, seriousA11yViolations, watchPage } from './support/browser.js';
import { askOnCanvas, useTenant } from './support/dashboard-page.js';
import { startFakeOpenAi, writeGatewayConfig } from './support/fake-llm-upstream.js';
import { eventually } from './support/eventually.js';
import { call, gql } from './support/http.js';
import { proposeAction } from './support/propose-action.js';
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
/** The README's own demo question (its curl example), so the first-screen test follows the README. */
const README_QUESTION = /"prompt":"([^"]+)"/.exec(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'README.md'), 'utf8'))![1]!;
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
/** Monday of the last complete ISO week: "last week" starts there. */
const lastMonday = today - (((new Date(today).getUTCDay() + 6) % 7) + 7) * DAY;
const history = { start: new Date(today - 400 * DAY).toISOString().slice(0, 10), days: 400 };
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

/** Reads or writes the platform as the admin, in `tenant`. */
const asAdmin = (tenant: string, path: string, init: { method?: string; json?: unknown } = {}) => call(`${platform.bridge}${path}`, { ...init, headers: { authorization: `Bearer ${admin}`, 'x-svc-tenant-id': tenant } });

/** Asks on the canvas and waits for the report; returns the job as the REST API has it. */
const ask = async (page: Page, tenant: string, prompt: string): Promise<any> => (await asAdmin(tenant, `/api/v1/insight/jobs/${await askOnCanvas(page, prompt)}`)).body.data;

const stepNumbers = (page: Page) => page.locator('ol.steps li').evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-seq'))));

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  upstream = await startFakeOpenAi({ delayMs: 150 });
  const config = await writeGatewayConfig({
    providers: [{ name: 'slow', kind: 'openai-compatible', baseUrl: upstream.url }],
    models: [{ name: 'slow-model', provider: 'slow', inputPerMTok: 5, outputPerMTok: 15 }],
    aliases: { 'auto-route': ['slow-model'], 'fast-track': ['slow-model'], 'deep-reasoning': ['slow-model'] },
  });
  // Crawl jobs may target this machine (the first-screen test registers one on the dashboard's own address).
  platform = await startTestPlatform({ SVCLLM_CONFIG: config, LLM_MODEL_NAME: 'slow-model', SVC_CRAWL_ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  dashboard = platform.urls.dashboard!;
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  admin = await platform.token({ subject: 'root' });
  // A tiny budget for the demo tenant's share of the analysis agent (the platform's to set: the
  // cost panel shows it, no card proposes it), and a draft waiting on the pricing page.
  await gql(platform.router, 'mutation { setBudget(input: {agentCode: "insight:demo", monthlyBudgetUsd: 0.0001, hardLimitEnabled: false}) { agentCode } }', {}, { authorization: `Bearer ${TEST_MASTER_KEY}` });
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
    // The demo tenant's own agent, seeded to overspend, gets a raise proposed.
    const budgetCard = (page: Page) => page.locator('.actions article.card', { hasText: "Raise agent shop-assistant's" });
    const contentCard = (page: Page) => page.locator('.actions article.card', { hasText: 'CONTENT_PUBLISH' });
    await budgetCard(second).getByRole('button', { name: 'Approve' }).waitFor();
    // Each pending proposal is shown once: the open report's are in its cards, and the queue says how many wait there.
    const ids = (await db.query('select id from insight.action where job_id = $1', [jobId])).rows.map((r: { id: string }) => r.id);
    expect(ids).toHaveLength(3);
    const inReport = (page: Page) => page.locator('.queue [data-in-report]');
    await eventually(async () => (await inReport(reviewer).getAttribute('data-in-report')) === '3', 10_000, 'the queue to count the open report\'s three proposals');
    for (const id of ids) expect(await reviewer.locator(`article.card[data-action="${id}"]`).count()).toBe(1);

    await budgetCard(reviewer).getByLabel(/Comment on/).fill('Raise it, thinking is worth it');
    await budgetCard(reviewer).getByRole('button', { name: 'Approve' }).click();
    await budgetCard(reviewer).locator('.badge.EXECUTED').waitFor({ timeout: 30_000 });
    expect(await budgetCard(reviewer).textContent()).toContain('Raise it, thinking is worth it');

    await contentCard(reviewer).getByLabel(/Comment on/).fill('Not before the copy review');
    await contentCard(reviewer).getByRole('button', { name: 'Reject' }).click();
    await contentCard(reviewer).locator('.badge.REJECTED').waitFor();
    // Right after the decisions, the queue counts the one proposal still waiting, not nothing.
    await eventually(async () => (await inReport(reviewer).getAttribute('data-in-report').catch(() => null)) === '1', 10_000, 'the queue to count the one proposal left');
    expect(await reviewer.locator('.queue').textContent()).not.toContain('Nothing waits');

    await budgetCard(second).getByRole('button', { name: 'Approve' }).click();
    await budgetCard(second).locator('.result.conflict').waitFor();
    expect(await budgetCard(second).locator('.result.conflict').textContent()).toContain('409');
    // The second reviewer's other cards catch up with the first one's decisions after theirs.
    await contentCard(second).locator('.badge.REJECTED').waitFor({ timeout: 10_000 });
    await reviewer.locator('.actions').screenshot({ path: join(OUT, 'action-cards.png') });
    await second.screenshot({ path: join(OUT, 'narrow-409.png'), fullPage: true });

    const stored = (await db.query('select kind, target_id, status, review_comment from insight.action where job_id = $1 order by kind, target_id', [jobId])).rows;
    expect(stored).toEqual([
      { kind: 'BUDGET_CHANGE', target_id: 'shop-assistant', status: 'EXECUTED', review_comment: 'Raise it, thinking is worth it' },
      // The demo's pricing version went live the day conversion fell: putting it back in the draft waits.
      { kind: 'CONTENT_DRAFT_UPDATE', target_id: expect.any(String), status: 'PROPOSED', review_comment: null },
      { kind: 'CONTENT_PUBLISH', target_id: expect.any(String), status: 'REJECTED', review_comment: 'Not before the copy review' },
    ]);
  });

  for (const width of [1280, 390]) {
    it(`reads well at ${width} px wide: no sideways scrolling, no serious or critical axe violation (CSP unchanged)`, async () => {
      const page = await signIn(await browser.newContext({ viewport: { width, height: 900 } }));
      await page.goto(`${dashboard}#job=${jobId}`);
      await page.locator('.report .judgment').waitFor();
      await page.locator('.chart canvas').first().waitFor();
      const sizes = await page.evaluate(() => {
        type Box = { right: number };
        type El = { tagName: string; className: string; textContent: string | null; children: ArrayLike<unknown>; getBoundingClientRect(): Box };
        const doc = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number }; querySelectorAll(s: string): ArrayLike<El> } }).document;
        const root = doc.documentElement;
        // The innermost elements drawn past the right edge, named, so a failure says what overflows.
        const wide = Array.from(doc.querySelectorAll('body *'))
          .filter((el) => el.children.length === 0 && el.getBoundingClientRect().right > root.clientWidth + 1)
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').slice(0, 60)}"`);
        return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
      });
      expect(sizes.wide).toEqual([]);
      expect(sizes.scrollWidth).toBeLessThanOrEqual(sizes.clientWidth);
      // In one column the report comes before the list of past jobs, so the answer is on the first screens.
      const top = async (name: string) => (await page.getByRole('region', { name }).boundingBox())!.y;
      if (width < 1100) expect(await top('Report')).toBeLessThan(await top('Past jobs'));
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
    // The demo's questions are offered in the demo tenant only.
    const tries = (page: typeof reviewer) => page.getByRole('group', { name: 'Questions the demo data answers' }).getByRole('button');
    expect(await tries(reviewer).count()).toBe(0);
    await reviewer.getByRole('form', { name: 'Tenant' }).getByLabel('Tenant').fill('demo');
    await reviewer.getByRole('button', { name: 'Use' }).click();
    await eventually(async () => (await tenantNow()) === 'demo', 5_000, 'tenant demo');
    await eventually(async () => (await tries(reviewer).count()) === 5, 5_000, 'the demo questions');
    await tries(reviewer).nth(2).click();
    expect(await reviewer.getByLabel('Analysis topic').inputValue()).toBe('Is the budget enough for our model spend this month?');
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

  it("shows the signed-in tenant's share of the analysis agent's budget from the gateway", async () => {
    const budget = reviewer.getByRole('region', { name: 'Analysis budget' });
    await budget.locator('dl.budget').waitFor();
    expect(await budget.textContent()).toMatch(/Used this month\$\d/);
    // insight:demo's allocation, set above: not the platform agent's, nor another tenant's.
    expect(await budget.textContent()).toMatch(/Allocated\$0\.0001/);
  });

  it('answers the README question with the answer, the waterfall and the first action card on the first screen at 1440×900', async () => {
    // A crawl job and an empty knowledge base: the question's search proposes a crawl, so there is a card whatever the analysis proposes.
    const crawl = await asAdmin('demo', '/api/v1/crawl/jobs', { json: { jobName: 'shop news', targetUrl: `${dashboard}news`, cronExpression: '0 0 3 1 1 ?', selectors: { listRow: 'article' } } });
    expect(crawl.status).toBe(201);
    const page = await signIn(await browser.newContext({ viewport: { width: 1440, height: 900 } }));
    const job = await ask(page, 'demo', README_QUESTION);
    expect(README_QUESTION).toMatch(/^Why did revenue drop last week\? What if/);
    await page.locator('.actions article.card').first().waitFor();
    // The answer is the judgment's first sentence, the engine's own.
    const answer = job.report.findings.find((f: { title: string }) => f.title === 'The answer').detail as string;
    expect(job.report.judgment.startsWith(answer)).toBe(true);
    // As a headline it starts with a capital (sentence case); the metric keeps its name elsewhere.
    expect(answer).toMatch(/^revenue fell /);
    expect(await page.locator('.report .judgment').textContent()).toBe(`R${answer.slice(1)}`);
    expect(await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)).toBe(0);
    // A judgment the engine's answer does not open (a model's) is split at its first sentence; `8.4 %` does not end one.
    const split = await page.evaluate((module) => import(module).then((m) => m.splitAnswer({ judgment: 'Revenue rose 8.4 % (to $66,269). Sessions did most of it.', findings: [] })), '/app/views/report.js');
    expect(split).toEqual({ answer: 'Revenue rose 8.4 % (to $66,269).', rest: 'Sessions did most of it.' });
    // Sentence case capitalises a plain first word only: an identifier keeps its spelling.
    const cased = await page.evaluate((module) => import(module).then((m) => ['revenue fell 3 %', 'claim_rate rose', 'llm.cost_usd rose', 'adSpend fell', 'Conversion rate fell', '“Pricing” went live'].map(m.sentenceCase)), '/app/format.js');
    expect(cased).toEqual(['Revenue fell 3 %', 'claim_rate rose', 'llm.cost_usd rose', 'adSpend fell', 'Conversion rate fell', '“Pricing” went live']);
    const boxes: Record<string, { x: number; y: number; width: number; height: number }> = {};
    for (const [name, selector] of [['answer', '.report .judgment'], ['waterfall', '.report .waterfall'], ['first action card', '.actions article.card']] as const) boxes[name] = (await page.locator(selector).first().boundingBox())!;
    await writeFile(join(OUT, 'first-screen-1440.json'), JSON.stringify(boxes, null, 1));
    await page.screenshot({ path: join(OUT, 'first-screen-1440.png') });
    for (const [name, box] of Object.entries(boxes)) expect([name, box.x >= 0 && box.y >= 0 && box.x + box.width <= 1440 && box.y + box.height <= 900]).toEqual([name, true]);
    expect(boxes.answer!.y).toBeLessThan(boxes.waterfall!.y);
    expect(boxes.waterfall!.y).toBeLessThan(boxes['first action card']!.y);
    // Each card names its target as the report does (the catalog's words, the page's title), never by a raw id.
    const named = Object.fromEntries(job.actions.map((a: { kind: string; targetName: string }) => [a.kind, a.targetName]));
    expect(named).toMatchObject({ EXTERNAL: 'Ad spend (search ads)' });
    expect(job.actions.find((a: { targetType: string }) => a.targetType === 'Content').targetName).toBe('“Pricing”, page "pricing" (en, site demo)');
    for (const action of job.actions) {
      const meta = await page.locator(`.actions article.card[data-action="${action.actionId}"] .meta`).first().innerText();
      const target = / · target (.*) · expires /.exec(meta)?.[1];
      expect(target).toBe(action.targetName);
      expect(target).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|[{}_]/);
    }
    // The card carries the decision's facts; the first card is the job's first action.
    const card = page.locator('.actions article.card').first();
    expect(await card.getAttribute('data-action')).toBe(job.actions[0].actionId);
    expect(await card.locator('dl.facts').innerText()).toContain(`${job.actions[0].undoable ? 'Can be undone' : 'Cannot be undone'}: ${job.actions[0].undo}`);
    // The step log is below it all, and folds away.
    const log = page.locator('details.step-log');
    expect((await log.boundingBox())!.y).toBeGreaterThan(boxes['first action card']!.y + boxes['first action card']!.height);
    await log.locator(':scope > summary').click();
    expect(await page.locator('ol.steps').isVisible()).toBe(false);
    // A reviewer approves the analysis's content proposal from its card, and it runs once.
    const pick = job.actions.find((a: { kind: string }) => a.kind.startsWith('CONTENT_')) ?? job.actions[0];
    const chosen = page.locator(`.actions article.card[data-action="${pick.actionId}"]`);
    await chosen.getByRole('button', { name: 'Approve' }).click();
    await chosen.locator('.badge.EXECUTED').waitFor({ timeout: 30_000 });
    const decided = (await db.query('select status, reviewed_by from insight.action where id = $1', [pick.actionId])).rows[0];
    expect(decided).toEqual({ status: 'EXECUTED', reviewed_by: 'admin' });
    await page.context().close();
  });

  it('draws the drill-down table of segments when the report has segments, as a table that reads at 390 px', async () => {
    // Parcels by depot and carrier; from last Monday the depot "harbour" loses 45 % of them.
    const leaves = generateLeaves('parcels', { depot: ['harbour', 'airport', 'city', 'rail'], carrier: ['van', 'bike'] }, { ...history, level: 12_000, seed: 17 }, (labels, day) => (labels.depot === 'harbour' && Date.parse(`${day}T00:00:00Z`) >= lastMonday ? 0.55 : 1));
    const ingest = await asAdmin('planted', '/api/v1/insight/metrics', { json: { series: leaves.map((l) => ({ name: l.name, labels: l.labels, unit: 'parcels', points: l.points.map((p) => ({ timestamp: p.t, value: Math.round(p.value) })) })) } });
    expect(ingest.status).toBe(200);
    const page = await signIn(await browser.newContext({ viewport: { width: 1440, height: 900 } }));
    await useTenant(page, 'planted');
    const job = await ask(page, 'planted', 'Why did parcels fall last week?');
    const expected = job.report.segmentTables[0];
    expect(expected.rows[0].labels.depot).toBe('harbour');
    expect(expected.rows.at(-1)).toMatchObject({ kind: 'REMAINDER', label: 'all other segments' });
    const table = page.getByRole('table', { name: expected.title });
    await table.waitFor();
    const heads = (await table.locator('thead th').allInnerTexts()).map((t) => t.split('\n')[0]);
    expect(heads).toEqual(['Segment', 'Before', 'After', 'Contribution', 'Share of the change', 'Explanatory power', 'Surprise']);
    expect(await table.locator('tbody th[scope=row]').allInnerTexts()).toEqual(expected.rows.map((r: { label: string }) => r.label));
    const t = expected.rows[0].text;
    expect(await table.locator('tbody tr').first().locator('td').allInnerTexts()).toEqual([t.before, t.after, t.contribution, t.share, t.explanatoryPower, t.surprise]);
    expect(await table.locator('tbody tr').last().locator('td').allInnerTexts()).toEqual(['–', '–', expected.rows.at(-1).text.contribution, expected.rows.at(-1).text.share, '–', '–']);
    await page.locator('.segment-table').screenshot({ path: join(OUT, 'segments-1440.png') });
    await page.setViewportSize({ width: 390, height: 900 });
    const widths = await page.evaluate(() => {
      const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number }; querySelector(s: string): { getBoundingClientRect(): { right: number } } } }).document;
      return { scrollWidth: d.documentElement.scrollWidth, clientWidth: d.documentElement.clientWidth, tableRight: d.querySelector('table.segments').getBoundingClientRect().right };
    });
    expect(widths.scrollWidth).toBeLessThanOrEqual(widths.clientWidth);
    expect(widths.tableRight).toBeLessThanOrEqual(widths.clientWidth);
    expect(await seriousA11yViolations(page)).toEqual([]);
    // Stacked, each cell still says which column it is.
    expect(await table.locator('tbody tr').first().locator('td').first().getAttribute('data-label')).toMatch(/^Before \(/);
    await page.locator('.segment-table').screenshot({ path: join(OUT, 'segments-390.png') });
    await page.context().close();
  });

  it('shows on a proposal\'s card its expected impact p10–p90 in its unit, over its horizon, how it was estimated and how to undo it', async () => {
    // Bookings in EUR driven by marketing spend in EUR at an elasticity of 0.5: a 10 % raise pays.
    const spend = generateDaily({ ...history, level: 1000, seed: 7, noise: 0.15 });
    const bookings = spend.map((p, i) => ({ t: p.t, value: 20_000 * (p.value / 1000) ** 0.5 * (1 + 0.01 * Math.sin(i)) }));
    const series = [{ name: 'bookings', points: bookings }, { name: 'marketing_spend', points: spend }];
    expect((await asAdmin('planted', '/api/v1/insight/metrics', { json: { series: series.map((x) => ({ ...x, labels: {}, unit: 'EUR', points: x.points.map((p) => ({ timestamp: p.t, value: p.value })) })) } })).status).toBe(200);
    expect((await asAdmin('planted', '/api/v1/insight/metrics/bookings/definition', { method: 'PUT', json: { unit: { kind: 'currency', code: 'EUR' }, drivers: [{ metric: 'marketing_spend' }] } })).status).toBe(200);
    expect((await asAdmin('planted', '/api/v1/insight/metrics/marketing_spend/definition', { method: 'PUT', json: { unit: { kind: 'currency', code: 'EUR' }, upIsGood: false } })).status).toBe(200);
    const page = await signIn(await browser.newContext({ viewport: { width: 1440, height: 900 } }));
    await useTenant(page, 'planted');
    const job = await ask(page, 'planted', 'What if we increase marketing spend by 10%? How did bookings do last week?');
    const external = job.actions.find((a: { kind: string }) => a.kind === 'EXTERNAL');
    expect(external.expectedImpact).toMatchObject({ metric: 'bookings', unit: 'EUR', horizonDays: 7, method: expect.any(String) });
    const card = page.locator(`.actions article.card[data-action="${external.actionId}"]`);
    await card.waitFor();
    const eur = (v: number) => `${v > 0 ? '+' : '\u2212'}${new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR', minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(Math.abs(v))}`;
    const { p10, p50, p90, method } = external.expectedImpact;
    const facts = await card.locator('dl.facts').innerText();
    expect(facts).toContain(`${eur(p50)} on bookings over 7 days (p10 ${eur(p10)} to p90 ${eur(p90)})`);
    expect(facts).toContain(method);
    expect(facts).toContain(`${external.undoable ? 'Can be undone' : 'Cannot be undone'}: ${external.undo}`);
    await card.screenshot({ path: join(OUT, 'impact-card.png') });
    await page.context().close();
  });

  it('shows a proposal whose target is gone by its last known name, as no longer existing, with nothing to approve', async () => {
    const crawl = await asAdmin('demo', '/api/v1/crawl/jobs', { json: { jobName: 'old prices', targetUrl: `${dashboard}prices`, cronExpression: '0 0 3 1 1 ?', selectors: { listRow: 'article' } } });
    expect(crawl.status).toBe(201);
    const id = await proposeAction(db, jobId, 'CRAWL_TRIGGER', 'CrawlJob', crawl.body.data.jobId, {});
    await db.query(`update insight.action set target_name = 'crawl job "old prices"' where id = $1`, [id]);
    expect((await asAdmin('demo', `/api/v1/crawl/jobs/${crawl.body.data.jobId}`, { method: 'DELETE' })).status).toBe(200);
    const page = await signIn(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
    const card = page.locator(`.actions article.card[data-action="${id}"]`);
    // Reading the job asks crawl about its proposals' targets (target-check.ts); the card says what it found.
    await eventually(async () => {
      await page.goto('about:blank');
      await page.goto(`${dashboard}#job=${jobId}`);
      await card.waitFor();
      return (await card.locator('[data-target-gone]').count()) === 1 ? true : undefined;
    }, 20_000, 'the card to say its target is gone');
    expect(await card.locator('.meta').innerText()).toBe('CRAWL_TRIGGER · target crawl job "old prices" · no longer exists');
    expect(await card.locator('[data-target-gone]').innerText()).toMatch(/^Crawl job "old prices" no longer exists \(found .+\): this proposal expired and cannot be approved\.$/);
    expect(await card.locator('.badge.EXPIRED').count()).toBe(1);
    expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await card.screenshot({ path: join(OUT, 'target-gone-card.png') });
    await page.context().close();
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
