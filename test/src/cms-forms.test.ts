import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';
import { eventually } from './support/eventually.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

let platform: TestPlatform;
let db: pg.Client;
let editor: string;
let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;

const valid = { applicantName: 'Ada Lovelace', email: 'ada@example.com', company: 'Engines Ltd', inquiryType: 'SALES', message: 'Hello there' };
// Each test uses its own client address so the per-client rate limit does not couple tests.
const submit = (formKey: string, body: unknown, client: string, extra: Record<string, string> = {}) =>
  call(`${platform.bridge}/api/v1/forms/${formKey}/submit`, { json: body, headers: { 'X-Svc-Site-Key': 'demo', 'X-Forwarded-For': client, ...extra } });

beforeAll(async () => {
  // The webhook receivers listen on 127.0.0.1, which only the allow list opens.
  platform = await startTestPlatform({ SVC_WEBHOOK_RETRY_BASE_MS: '50', SVC_FORM_RATE_LIMIT_PER_MINUTE: '5', SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS: '127.0.0.1', SVC_WEBHOOK_SWEEP_MS: '300' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  editor = await platform.token({ roles: ['editor'], sites: ['demo'] });
  webhook = await startWebhookReceiver([500, 503]);
  const defined = await gql(platform.router, `mutation($input: DefineFormInput!) { defineForm(input: $input) { formKey webhookUrl fields { name } } }`, {
    input: {
      siteKey: 'demo',
      formKey: 'newsletter',
      name: 'Newsletter',
      webhookUrl: webhook.url,
      rateLimitPerMinute: 2,
      honeypotField: 'website',
      fields: [
        { name: 'email', type: 'email', required: true },
        { name: 'topic', type: 'enum', required: false, options: ['NEWS', 'RELEASES'] },
      ],
    },
  }, { authorization: `Bearer ${editor}` });
  expect(defined.body.errors).toBeUndefined();
});
afterAll(async () => {
  await db?.end();
  await webhook?.close();
  await platform?.close();
});

describe('POST /api/v1/forms/{formKey}/submit', () => {
  it('stores the submission durably before answering 201 with the receipt', async () => {
    const reply = await submit('contact', valid, '198.51.100.1');
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ success: true, data: { submissionId: expect.stringMatching(/^[0-9a-f-]{36}$/), receivedAt: expect.any(String) } });
    expect(new Date(reply.body.data.receivedAt).toISOString()).toBe(reply.body.data.receivedAt);
    const { rows } = await db.query('select data, spam, client_ip, webhook_status from cms.form_submission where id = $1', [reply.body.data.submissionId]);
    expect(rows).toEqual([{ data: valid, spam: false, client_ip: '198.51.100.1', webhook_status: 'NONE' }]);
  });

  it('names every invalid field with a JSON pointer in a 422 problem, and stores nothing', async () => {
    const before = (await db.query('select count(*)::int as n from cms.form_submission')).rows[0].n;
    const reply = await submit('contact', { applicantName: '', email: 'not-an-email', inquiryType: 'BRIBE', message: 'x'.repeat(5001), shoeSize: '44' }, '198.51.100.2');
    expect(reply.status).toBe(422);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body).toMatchObject({ title: 'Validation Failed', status: 422, type: expect.stringMatching(/\/errors\/validation-failed$/), instance: '/api/v1/forms/contact/submit' });
    expect(reply.body.errors).toEqual([
      { pointer: '/applicantName', detail: 'applicantName is required' },
      { pointer: '/email', detail: expect.stringContaining('"not-an-email"') },
      { pointer: '/inquiryType', detail: expect.stringContaining('"BRIBE"') },
      { pointer: '/message', detail: expect.stringContaining('at most 5000 characters') },
      { pointer: '/shoeSize', detail: expect.stringContaining('not a field') },
    ]);
    expect((await db.query('select count(*)::int as n from cms.form_submission')).rows[0].n).toBe(before);
  });

  it('answers an unknown form key and an unknown site with 404 problems', async () => {
    const form = await submit('no-such-form', valid, '198.51.100.3');
    expect(form.status).toBe(404);
    expect(form.body).toMatchObject({ title: 'Form Not Found', type: expect.stringMatching(/\/errors\/form-not-found$/), detail: expect.stringContaining('"no-such-form"') });
    const site = await submit('contact', valid, '198.51.100.3', { 'X-Svc-Site-Key': 'ghost-site' });
    expect(site.status).toBe(404);
    expect(site.body.type).toMatch(/\/errors\/site-not-found$/);
  });

  it('rejects a non-string value by naming it', async () => {
    const reply = await submit('contact', { ...valid, company: { nested: true } }, '198.51.100.4');
    expect(reply.status).toBe(422);
    expect(reply.body.errors).toEqual([{ pointer: '/company', detail: expect.stringContaining('must be a string') }]);
  });

  it('stores injection strings inert and returns them unchanged as data', async () => {
    const nasty = {
      applicantName: "Robert'); DROP TABLE cms.form_submission; --",
      email: 'x@example.com',
      company: '<script>alert(document.cookie)</script>',
      inquiryType: 'GENERAL',
      message: '{{7*7}} ${process.env.SECRET} $where: 1 == 1',
    };
    const reply = await submit('contact', nasty, '198.51.100.5');
    expect(reply.status).toBe(201);
    const { rows } = await db.query('select data from cms.form_submission where id = $1', [reply.body.data.submissionId]);
    expect(rows[0].data).toEqual(nasty);
    const nul = await submit('contact', { ...nasty, message: 'a\u0000b' }, '198.51.100.5');
    // Refused at the edge by the platform's text rule (400), before the form's own rules run.
    expect(nul.status).toBe(400);
    expect(nul.body.errors).toEqual([{ pointer: '/message', detail: 'contains a NUL character' }]);
    expect((await db.query("select to_regclass('cms.form_submission') as t")).rows[0].t).toBe('cms.form_submission');

    const title = "'; DELETE FROM cms.content; -- <img src=x onerror=alert(1)>";
    const created = await gql(platform.router, `mutation($input: CreateContentInput!) { createContent(input: $input) { id } }`, { input: { siteKey: 'demo', slug: 'inert', title, fields: { headline: '<b>{{x}}</b>' } } }, { authorization: `Bearer ${editor}` });
    await gql(platform.router, `mutation($id: ID!) { publishContent(id: $id) { id } }`, { id: created.body.data.createContent.id }, { authorization: `Bearer ${editor}` });
    const delivered = await call(`${platform.bridge}/api/v1/contents/inert`, { headers: { 'X-Svc-Site-Key': 'demo' } });
    expect(delivered.body.data).toMatchObject({ title, fields: { headline: '<b>{{x}}</b>' }, seo: { metaTitle: title } });
  });

  it('limits submissions per client and form, with 429 and Retry-After', async () => {
    const client = '198.51.100.6';
    expect((await submit('newsletter', { email: 'a@example.com' }, client)).status).toBe(201);
    expect((await submit('newsletter', { email: 'b@example.com' }, client)).status).toBe(201);
    const limited = await submit('newsletter', { email: 'c@example.com' }, client);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.body).toMatchObject({ status: 429, type: expect.stringMatching(/\/errors\/rate-limited$/), detail: expect.stringContaining('at most 2 per minute') });
    expect((await submit('newsletter', { email: 'd@example.com' }, '198.51.100.7')).status).toBe(201);
  });

  it('notifies the form webhook with retries and backoff, never blocking the response', async () => {
    const started = Date.now();
    const reply = await submit('newsletter', { email: 'hook@example.com', topic: 'NEWS' }, '198.51.100.8');
    expect(reply.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(5000);
    const id = reply.body.data.submissionId;
    const attempts = await eventually(() => {
      const mine = webhook.received.filter((r) => r.body.submissionId === id);
      return mine.length >= 3 ? mine : undefined;
    }, 20_000, 'three webhook attempts');
    expect(attempts[0]!.body).toEqual({ event: 'form.submission', siteKey: 'demo', formKey: 'newsletter', submissionId: id, receivedAt: reply.body.data.receivedAt, data: { email: 'hook@example.com', topic: 'NEWS' } });
    expect(attempts[0]!.headers['x-svc-event']).toBe('form.submission');
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(40);
    const row = await eventually(async () => {
      const { rows } = await db.query('select webhook_status, webhook_attempts from cms.form_submission where id = $1', [id]);
      return rows[0]?.webhook_status === 'DELIVERED' ? rows[0] : undefined;
    }, 10_000, 'DELIVERED');
    expect(row).toEqual({ webhook_status: 'DELIVERED', webhook_attempts: 3 });
  });

  it('delivers a stored submission whose webhook job was never queued (crash or queue failure between the two): the row is the outbox', async () => {
    // The state a crash right after the submission's commit leaves: a PENDING row, no agenda job.
    const { rows: [form] } = await db.query(`select f.id from cms.form f join cms.site s on s.id = f.site_id where s.site_key = 'demo' and f.form_key = 'newsletter'`);
    const { rows: [orphan] } = await db.query(
      `insert into cms.form_submission (id, form_id, data, spam, client_ip, received_at, webhook_status, webhook_attempts, webhook_due_at)
       values (gen_random_uuid(), $1, '{"email": "orphan@example.com"}', false, '198.51.100.30', now(), 'PENDING', 0, now()) returning id`,
      [form.id],
    );
    const row = await eventually(async () => {
      const { rows } = await db.query('select webhook_status, webhook_attempts from cms.form_submission where id = $1', [orphan.id]);
      return rows[0]?.webhook_status === 'DELIVERED' ? rows[0] : undefined;
    }, 15_000, 'the orphaned submission DELIVERED by the outbox sweep');
    expect(row).toEqual({ webhook_status: 'DELIVERED', webhook_attempts: 3 });
    expect(webhook.received.filter((r) => r.body.submissionId === orphan.id).map((r) => r.body.data)).toEqual([{ email: 'orphan@example.com' }, { email: 'orphan@example.com' }, { email: 'orphan@example.com' }]);
  });

  it('stores a honeypot submission as spam, answers 201, and does not forward it', async () => {
    const before = webhook.received.length;
    const reply = await submit('newsletter', { email: 'bot@example.com', website: 'http://spam.example' }, '198.51.100.9');
    expect(reply.status).toBe(201);
    const { rows } = await db.query('select spam, webhook_status from cms.form_submission where id = $1', [reply.body.data.submissionId]);
    expect(rows[0]).toEqual({ spam: true, webhook_status: 'NONE' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(webhook.received.slice(before).some((r) => r.body.submissionId === reply.body.data.submissionId)).toBe(false);
  });

  it('lets editors define forms only with a valid definition', async () => {
    const bad = await gql(platform.router, `mutation($input: DefineFormInput!) { defineForm(input: $input) { formKey } }`, {
      input: { siteKey: 'demo', formKey: 'Bad Key', name: 'x', fields: [{ name: 'kind', type: 'enum', required: true }] },
    }, { authorization: `Bearer ${editor}` });
    expect(bad.body.errors?.[0]?.extensions?.errors).toEqual([
      { pointer: '/formKey', detail: expect.stringContaining('"Bad Key"') },
      { pointer: '/fields/0/options', detail: 'enum fields need at least one option' },
    ]);
  });

  it('refuses webhook URLs to addresses that are not public when the form is defined (SSRF guard)', async () => {
    for (const webhookUrl of ['http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/hook', 'http://0.0.0.0:8080/hook', 'http://127.0.0.2:8080/hook', 'http://2130706434/hook', 'file:///etc/passwd']) {
      const reply = await gql(platform.router, `mutation($input: DefineFormInput!) { defineForm(input: $input) { formKey } }`, {
        input: { siteKey: 'demo', formKey: 'ssrf', name: 'x', webhookUrl, fields: [{ name: 'email', type: 'email', required: true }] },
      }, { authorization: `Bearer ${editor}` });
      expect({ webhookUrl, errors: reply.body.errors?.[0]?.extensions?.errors }).toEqual({ webhookUrl, errors: [expect.objectContaining({ pointer: '/webhookUrl' })] });
      expect(reply.body.errors?.[0]?.extensions?.status).toBe(422);
    }
    const { rows } = await db.query(`select count(*)::int as n from cms.form where form_key = 'ssrf'`);
    expect(rows[0].n).toBe(0);
  });

  it('guards the webhook again when it is called: a stored private URL and a redirect to one are never reached', async () => {
    const inner = await startWebhookReceiver();
    const redirector = await startRedirector();
    try {
      // A form stored before the guard existed points at ::1; another form's allowed webhook redirects to the metadata address.
      for (const [formKey, webhookUrl] of [['old-hook', `http://[::1]:${new URL(inner.url).port}/hook`], ['redirecting-hook', `${redirector.url}?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`]] as const) {
        const defined = await gql(platform.router, `mutation($input: DefineFormInput!) { defineForm(input: $input) { formKey } }`, {
          input: { siteKey: 'demo', formKey, name: formKey, webhookUrl: webhook.url, fields: [{ name: 'email', type: 'email', required: true }] },
        }, { authorization: `Bearer ${editor}` });
        expect(defined.body.errors).toBeUndefined();
        await db.query(`update cms.form set webhook_url = $1 where form_key = $2`, [webhookUrl, formKey]);
      }
      for (const [formKey, reason] of [['old-hook', /Refusing to fetch http:\/\/\[::1\]:\d+\/hook: ::1 \(loopback\) is not allowed/], ['redirecting-hook', /169\.254\.169\.254 \(linkLocal\) is not allowed \(redirected from/]] as const) {
        const reply = await submit(formKey, { email: 'ssrf@example.com' }, '198.51.100.20');
        expect(reply.status).toBe(201);
        const row = await eventually(async () => {
          const { rows } = await db.query('select webhook_attempts, webhook_last_error from cms.form_submission where id = $1', [reply.body.data.submissionId]);
          return rows[0]?.webhook_attempts >= 1 ? rows[0] : undefined;
        }, 10_000, `a refused attempt of ${formKey}`);
        expect(row.webhook_last_error).toMatch(reason);
      }
      expect(inner.received).toEqual([]);
    } finally {
      await inner.close();
      await redirector.close();
    }
  });
});

describe('the client address a subgraph believes', () => {
  it('ignores x-svc-client-ip sent straight to the subgraph (not signed by the router): the rate limit counts the socket address', async () => {
    const direct = (client: string) =>
      gql(platform.urls.cms!, `mutation($data: JSONObject!) { submitForm(siteKey: "demo", formKey: "newsletter", data: $data) { submissionId } }`, { data: { email: `${client}@example.com` } }, { 'x-svc-site-key': 'demo', 'x-svc-client-ip': client });
    // newsletter allows 2 per minute per client; three forged addresses are still one client.
    expect((await direct('203.0.113.1')).body.errors).toBeUndefined();
    expect((await direct('203.0.113.2')).body.errors).toBeUndefined();
    const third = await direct('203.0.113.3');
    expect(third.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    const { rows } = await db.query(`select distinct client_ip from cms.form_submission where data->>'email' like '203.0.113.%'`);
    expect(rows.map((r: { client_ip: string }) => r.client_ip)).toEqual([expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/)]);
  });
});

/** An allowed endpoint that answers 307 to `?to=`. */
async function startRedirector() {
  const server = createServer((req, res) => {
    res.writeHead(307, { location: new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/redirect`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
