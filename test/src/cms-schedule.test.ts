import { afterAll, describe, expect, it } from '@jest/globals';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';

const site = { 'X-Svc-Site-Key': 'demo' };
let platform: TestPlatform | undefined;
afterAll(() => platform?.close());

async function author(p: TestPlatform, query: string, variables: Record<string, unknown>) {
  const reply = await gql(p.router, query, variables, { authorization: `Bearer ${await p.token({ roles: ['editor'], sites: ['demo'] })}` });
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data as Record<string, any>;
}

describe('scheduled publishing', () => {
  it('publishes at the scheduled time, by a job that survives a restart', async () => {
    platform = await startTestPlatform();
    const { createContent } = await author(platform, `mutation($i: CreateContentInput!) { createContent(input: $i) { id } }`, { i: { siteKey: 'demo', slug: 'later', title: 'Later' } });
    const at = new Date(Date.now() + 4000);
    const scheduled = (await author(platform, `mutation($id: ID!, $at: DateTimeISO!) { scheduleContentPublish(id: $id, at: $at) { status scheduledPublishAt scheduledVersion } }`, { id: createContent.id, at: at.toISOString() })).scheduleContentPublish;
    expect(scheduled).toEqual({ status: 'SCHEDULED', scheduledPublishAt: at.toISOString(), scheduledVersion: 1 });
    expect((await call(`${platform.bridge}/api/v1/contents/later`, { headers: site })).status).toBe(404);

    // Stop everything before the time comes, then start a new platform on the same database.
    const reuse = { databaseUrl: platform.databaseUrl, redisPrefix: platform.redisPrefix };
    await platform.stop();
    platform = await startTestPlatform({}, { reuse });
    const delivered = await eventually(async () => {
      const reply = await call(`${platform!.bridge}/api/v1/contents/later`, { headers: site });
      return reply.status === 200 ? reply : undefined;
    }, 15_000, 'the scheduled publish');
    expect(Date.now()).toBeGreaterThanOrEqual(at.getTime());
    expect(delivered.body.data).toMatchObject({ slug: 'later', version: 1, status: 'PUBLISHED' });
    const after = (await author(platform, `query($id: ID!) { content(id: $id) { status scheduledPublishAt publishedVersion } }`, { id: createContent.id })).content;
    expect(after).toEqual({ status: 'PUBLISHED', scheduledPublishAt: null, publishedVersion: 1 });
  });

  it('does nothing when the schedule was cancelled, and refuses times in the past', async () => {
    platform ??= await startTestPlatform();
    const { createContent } = await author(platform, `mutation($i: CreateContentInput!) { createContent(input: $i) { id } }`, { i: { siteKey: 'demo', slug: 'never', title: 'Never' } });
    await author(platform, `mutation($id: ID!, $at: DateTimeISO!) { scheduleContentPublish(id: $id, at: $at) { status } }`, { id: createContent.id, at: new Date(Date.now() + 1500).toISOString() });
    const cancelled = (await author(platform, `mutation($id: ID!) { cancelScheduledPublish(id: $id) { status scheduledPublishAt } }`, { id: createContent.id })).cancelScheduledPublish;
    expect(cancelled).toEqual({ status: 'DRAFT', scheduledPublishAt: null });
    await new Promise((r) => setTimeout(r, 3500));
    expect((await call(`${platform.bridge}/api/v1/contents/never`, { headers: site })).status).toBe(404);

    const past = await gql(platform.router, `mutation($id: ID!, $at: DateTimeISO!) { scheduleContentPublish(id: $id, at: $at) { status } }`, { id: createContent.id, at: '2020-01-01T00:00:00Z' }, { authorization: `Bearer ${await platform.token()}` });
    expect(past.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 422, errors: [{ pointer: '/at', detail: expect.stringContaining('2020-01-01T00:00:00.000Z') }] });
  });
});
