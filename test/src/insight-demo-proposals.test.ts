import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { engineFinding, reviewerClient, tenantClient } from './support/insight-tenant.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * The demo's questions on a freshly seeded platform (the story in kit's demo-story.ts): the
 * README's question finds revenue's fall on the day the pricing page's version 2 went live and
 * proposes restoring version 1, and hands off the what-if's search ad spend rise, which pays; the
 * newsletter sign-ups' fall proposes putting the newsletter page's call to action back in its
 * waiting draft, which, approved, changes the draft and nothing live; the demo agent's budget,
 * which runs out before the month ends, is raised; the competitor crawl, which collects a
 * tenth of its items since a run healed its selectors, gets its selectors changed back; and the
 * supplier crawl, whose runs have all failed since the Wednesday before the week, is run again.
 */

let platform: TestPlatform;
let admin: string;
let analyst: string;
let tenant: ReturnType<typeof tenantClient>;
let reviewer: ReturnType<typeof reviewerClient>;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function content(slug: string) {
  const reply = await gql(platform.router, 'query { contents(siteKey: "demo") { id slug publishedVersion latestVersion versions { version status fields { ctaText ctaLink description headline } } } }', {}, bearer(admin));
  return reply.body.data.contents.find((c: { slug: string }) => c.slug === slug);
}

beforeAll(async () => {
  platform = await startTestPlatform();
  admin = await platform.token({ subject: 'root' });
  analyst = await platform.token({ subject: 'ana', roles: ['analyst', 'editor'], tenants: ['demo'], sites: ['demo'] }, 1800);
  tenant = tenantClient(platform.bridge, () => analyst);
  reviewer = reviewerClient(platform.bridge, await platform.token({ subject: 'rev', roles: ['reviewer'], tenants: ['demo'], sites: ['demo'] }, 1800));
});
afterAll(async () => {
  await platform?.close();
});

describe('the demo\'s proposals', () => {
  it('answers the README question with restoring the pricing page and handing off the search spend rise', async () => {
    const pricing = await content('pricing');
    expect(pricing).toMatchObject({ publishedVersion: 2, latestVersion: 2 });
    const job = await tenant.ask('Why did revenue drop last week? What if we increase search ad spend by 20%?');
    expect(job.status).toBe('COMPLETED');
    const f = engineFinding(job);
    expect(f.premise).toMatchObject({ verdict: 'confirmed', observed: 'down' });
    expect(f.events.map((e: { event: { ref: string } }) => e.event.ref)).toEqual([`content:demo:${pricing.id}:v2`]);
    // In the report's order: the lever behind the fall first, the what-if's hand-off after it.
    expect(job.actions.map((a: { kind: string }) => a.kind)).toEqual(['CONTENT_RESTORE', 'EXTERNAL']);
    const restore = job.actions.find((a: { kind: string }) => a.kind === 'CONTENT_RESTORE');
    expect(restore).toMatchObject({ targetId: pricing.id, params: { siteKey: 'demo', version: 1 }, finding: { title: 'When it started' }, expectedImpact: { metric: 'revenue', unit: 'USD', horizonDays: 7 } });
    const external = job.actions.find((a: { kind: string }) => a.kind === 'EXTERNAL');
    expect(external).toMatchObject({ targetId: 'ad_spend{channel=search}', params: { change: { metric: 'ad_spend', labels: { channel: 'search' }, changePercent: 20 } }, finding: { title: 'What the change would do' } });
    expect(f.whatIf.cost.pays).toBe(true);
  });

  it('keeps one pending proposal per change: asked again, the earlier proposals expire naming the new ones, also when two analyses end at once', async () => {
    const question = 'Why did revenue drop last week? What if we increase search ad spend by 20%?';
    const first = await tenant.ask(question);
    const second = await tenant.ask(question);
    expect(second.actions.map((a: { paramsHash: string }) => a.paramsHash)).toEqual(first.actions.map((a: { paramsHash: string }) => a.paramsHash));
    const action = async (id: string) => (await call(`${platform.bridge}/api/v1/insight/actions/${id}`, { headers: bearer(analyst) })).body.data;
    for (const [i, earlier] of first.actions.entries()) {
      const now = await action(earlier.actionId);
      expect(now).toMatchObject({ status: 'EXPIRED', outcome: { supersededBy: second.actions[i].actionId, jobId: second.jobId } });
      expect(now.outcome.reason).toContain(second.jobId);
      expect((await action(second.actions[i].actionId)).status).toBe('PROPOSED');
    }
    const reviewerToken = await platform.token({ subject: 'rev', roles: ['reviewer'], tenants: ['demo'], sites: ['demo'] });
    const late = await call(`${platform.bridge}/api/v1/insight/actions/${first.actions[0].actionId}/approve`, { headers: bearer(reviewerToken), json: { comment: 'the earlier one' } });
    expect(late.status).toBe(409);

    // Two at once: whichever ends last keeps the pending ones.
    const both = await Promise.all([tenant.ask(question), tenant.ask(question)]);
    const rows: { paramsHash: string; jobId: string }[] = (await call(`${platform.bridge}/api/v1/insight/actions?status=PROPOSED&first=100`, { headers: bearer(analyst) })).body.data;
    const hashes = second.actions.map((a: { paramsHash: string }) => a.paramsHash);
    for (const hash of hashes) expect(rows.filter((a) => a.paramsHash === hash)).toHaveLength(1);
    expect(rows.filter((a) => hashes.includes(a.paramsHash)).every((a) => both.some((job) => job.jobId === a.jobId))).toBe(true);
  });

  it('proposes no page publication for a question about the conversion rate alone', async () => {
    const job = await tenant.ask('Did the conversion rate change last month?');
    expect(job.status).toBe('COMPLETED');
    expect(job.steps.some((s: { toolName: string | null }) => s.toolName === 'read_content')).toBe(true);
    expect(job.actions.filter((a: { kind: string }) => a.kind === 'CONTENT_PUBLISH')).toEqual([]);
  });

  it('puts the newsletter page\'s call to action back in its waiting draft; approved, the draft changes and the live page does not', async () => {
    const before = await content('newsletter');
    expect(before).toMatchObject({ publishedVersion: 2, latestVersion: 3 });
    const job = await tenant.ask('Why did newsletter signups drop last week?');
    expect(job.status).toBe('COMPLETED');
    expect(job.actions).toHaveLength(1);
    const update = job.actions[0];
    expect(update).toMatchObject({
      kind: 'CONTENT_DRAFT_UPDATE', targetId: before.id, undoable: true, finding: { title: 'When it started' },
      params: { siteKey: 'demo', baseVersion: 3, input: { fields: { ctaText: 'Subscribe', ctaLink: '/newsletter/subscribe' } }, previous: { fields: { ctaText: 'Read the blog', ctaLink: '/blog' } } },
      expectedImpact: { metric: 'newsletter_signups', unit: 'sign-ups' },
    });
    await reviewer.approve(update.actionId);
    expect(await reviewer.settled(update.actionId)).toMatchObject({ status: 'EXECUTED' });
    const after = await content('newsletter');
    expect(after).toMatchObject({ publishedVersion: 2, latestVersion: 3 });
    const draft = after.versions.find((v: { version: number }) => v.version === 3);
    const live = after.versions.find((v: { version: number }) => v.version === 2);
    // The call to action is back; the editor's own change of the draft stays.
    expect(draft).toMatchObject({ status: 'DRAFT', fields: { ctaText: 'Subscribe', ctaLink: '/newsletter/subscribe', description: expect.stringContaining('no spam') } });
    expect(live.fields.ctaText).toBe('Read the blog');
    const delivered = await call(`${platform.bridge}/api/v1/contents/newsletter`, { headers: { 'x-svc-site-key': 'demo' } });
    expect(delivered.body.data).toMatchObject({ version: 2, fields: { ctaText: 'Read the blog' } });
  });

  it('answers whether the model budget lasts the month, and raises the demo agent\'s when it does not', async () => {
    const job = await tenant.ask('Is the budget enough for our model spend this month?');
    expect(job.status).toBe('COMPLETED');
    const now = new Date();
    if (now.getTime() - Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) < 43_200_000) {
      // In a month's first twelve hours the spend so far is not extended (read_budgets): the budget lasts, nothing is proposed.
      expect(job.report.judgment).toMatch(/^Yes: /);
      expect(job.actions).toEqual([]);
      return;
    }
    // The tenant's two budgets: its own agent's, and its share of the analysis agent's (the platform's, which lasts).
    expect(job.report.judgment).toMatch(/^No: 1 of 2 budgets run out before the month ends\. Agent shop-assistant has spent \$[\d.]+ of its \$60\.00 budget this month .* runs out around day \d+ of \d+ and the agent stops then/);
    expect(job.report.confidenceReason).toMatch(/^A straight-line projection of this month's spend after day \d+ of \d+/);
    expect(job.report.confidence).toBeGreaterThanOrEqual(0.4);
    expect(job.actions.map((a: { kind: string }) => a.kind)).toEqual(['BUDGET_CHANGE']);
    const raise = job.actions[0];
    expect(raise).toMatchObject({ targetType: 'Agent', targetId: 'shop-assistant', params: { hardLimitEnabled: true }, expectedImpact: { unit: 'USD' } });
    expect(raise.params.monthlyBudgetUsd).toBeGreaterThan(60);
    await reviewer.approve(raise.actionId);
    expect(await reviewer.settled(raise.actionId)).toMatchObject({ status: 'EXECUTED' });
    const budgets = await gql(platform.router, '{ budgets { agentCode allocatedUsd hardLimitEnabled } }', {}, bearer(admin));
    expect(budgets.body.data.budgets.find((b: { agentCode: string }) => b.agentCode === 'shop-assistant')).toEqual({ agentCode: 'shop-assistant', allocatedUsd: raise.params.monthlyBudgetUsd, hardLimitEnabled: true });
  });

  it('changes the competitor crawl\'s healed selectors back to the ones that collected its items', async () => {
    const headers = { ...bearer(admin), 'x-svc-tenant-id': 'demo' };
    const jobs = await gql(platform.router, '{ crawlJobs { jobId jobName status selectorVersion selectors } }', {}, headers);
    const crawl = jobs.body.data.crawlJobs.find((j: { jobName: string }) => j.jobName === 'Competitor prices');
    expect(crawl).toMatchObject({ status: 'PAUSED', selectorVersion: 2, selectors: { listRow: 'ul.catalogue > li.product.featured' } });
    const job = await tenant.ask('Why did the competitor price crawl collect fewer items last week?');
    expect(job.status).toBe('COMPLETED');
    const f = engineFinding(job);
    expect(f.premise).toMatchObject({ verdict: 'confirmed', observed: 'down', position: 'below' });
    expect(f.events.map((e: { event: { ref: string } }) => e.event.ref)).toEqual([`crawl-job:${crawl.jobId}`]);
    expect(job.actions.map((a: { kind: string }) => a.kind)).toEqual(['CRAWL_SELECTOR_CHANGE']);
    const change = job.actions[0];
    expect(change).toMatchObject({
      targetType: 'CrawlJob', targetId: crawl.jobId, undoable: true, finding: { title: 'When it started' },
      params: { restores: 1, replaces: 2, selectors: { listRow: 'ul.catalogue > li.product', title: 'h2.product-name', link: 'a.product-link::attr(href)' } },
      expectedImpact: { metric: 'crawl.items', unit: 'items' },
    });
    await reviewer.approve(change.actionId);
    expect(await reviewer.settled(change.actionId)).toMatchObject({ status: 'EXECUTED' });
    const after = await gql(platform.router, 'query($id: ID!) { crawlJob(jobId: $id) { selectorVersion selectors } }', { id: crawl.jobId }, headers);
    expect(after.body.data.crawlJob).toEqual({ selectorVersion: 3, selectors: change.params.selectors });
  });

  it('runs the supplier crawl again, whose runs have all failed since they started failing', async () => {
    const headers = { ...bearer(admin), 'x-svc-tenant-id': 'demo' };
    const jobs = await gql(platform.router, '{ crawlJobs { jobId jobName status } }', {}, headers);
    const crawl = jobs.body.data.crawlJobs.find((j: { jobName: string }) => j.jobName === 'Supplier stock');
    expect(crawl).toMatchObject({ status: 'PAUSED' });
    const runs = async () => (await gql(platform.router, 'query($id: ID!) { crawlExecutions(jobId: $id, limit: 200) { executionId status allocatedAgent } }', { id: crawl.jobId }, headers)).body.data.crawlExecutions;
    const seeded = await runs();
    const job = await tenant.ask('Why did the supplier stock crawl collect no items last week?');
    expect(job.status).toBe('COMPLETED');
    const f = engineFinding(job);
    expect(f.subject).toMatchObject({ name: 'crawl.items', scope: { job_name: 'Supplier stock' } });
    expect(f.premise).toMatchObject({ verdict: 'confirmed', observed: 'down', position: 'below' });
    // The failing started once: one event, at the first failed run.
    const first = seeded.filter((r: { status: string }) => r.status === 'FAILED').at(-1);
    expect(f.events.map((e: { event: { ref: string } }) => e.event.ref)).toEqual([`crawl-job:${crawl.jobId}:execution:${first.executionId}`]);
    expect(job.actions.map((a: { kind: string }) => a.kind)).toEqual(['CRAWL_TRIGGER']);
    const trigger = job.actions[0];
    expect(trigger).toMatchObject({ targetType: 'CrawlJob', targetId: crawl.jobId, params: { failedExecution: first.executionId }, finding: { title: 'When it started' }, expectedImpact: { metric: 'crawl.items', unit: 'items' } });
    await reviewer.approve(trigger.actionId);
    expect(await reviewer.settled(trigger.actionId)).toMatchObject({ status: 'EXECUTED' });
    // One new run, taken by a worker (its fetch of the fictional site fails, as the seeded ones did).
    const after = await runs();
    expect(after).toHaveLength(seeded.length + 1);
    expect(after[0]).toMatchObject({ status: expect.stringMatching(/^(RUNNING|COMPLETED|FAILED)$/), allocatedAgent: expect.not.stringMatching(/^demo-seed$/) });
  });
});
