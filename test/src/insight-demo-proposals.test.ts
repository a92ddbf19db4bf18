import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { engineFinding, reviewerClient, tenantClient } from './support/insight-tenant.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * The demo's questions on a freshly seeded platform (the story in kit's demo-story.ts): the
 * README's question finds revenue's fall on the day the pricing page's version 2 went live and
 * proposes restoring version 1, and hands off the what-if's search ad spend rise, which pays; the
 * newsletter sign-ups' fall proposes putting the newsletter page's call to action back in its
 * waiting draft, which, approved, changes the draft and nothing live.
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
});
