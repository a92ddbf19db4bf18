import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { call, gql } from './support/http.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * Bulk import through the bridge (POST /api/v1/insight/metrics/import, served by the insight
 * service's own route and passed through untouched): CSV and NDJSON, all or nothing, problems by
 * line, a time met twice keeping the later line, progress as a stream, and the tenant's rules.
 */

let platform: TestPlatform;
let db: pg.Client;
let analyst: string;
const url = () => `${platform.bridge}/api/v1/insight/metrics/import`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const upload = (body: string, type: string, headers: Record<string, string> = {}, token = analyst) => call(url(), { method: 'POST', headers: { ...bearer(token), 'content-type': type, ...headers }, body });
const stored = async (name: string) =>
  (await db.query<{ labels: Record<string, string>; unit: string | null; t: string; value: number }>(
    `select s.labels, s.unit, to_char(p.t at time zone 'UTC', 'YYYY-MM-DD') as t, p.value from insight.metric_series s join insight.metric_point p on p.tenant_id = s.tenant_id and p.series_id = s.id
      where s.tenant_id = 't1' and s.name = $1 order by s.labels_key, p.t`, [name])).rows;

beforeAll(async () => {
  platform = await startTestPlatform();
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  analyst = await platform.token({ subject: 'ivy', roles: ['analyst'], tenants: ['t1'], sites: [] });
});
afterAll(async () => {
  await db?.end();
  await platform?.close();
});

describe('metric import', () => {
  it('imports a CSV file: extra columns are labels, an empty cell leaves one out, lines in any order', async () => {
    const csv = [
      'name,timestamp,value,unit,region,store',
      'parcels_sent,2026-11-02T00:00:00Z,12,count,north,s1',
      'parcels_sent,2026-11-01T00:00:00Z,10,count,north,s1',
      'parcels_sent,1793491200000,7.5,,south,',
      '"parcels_sent","2026-11-02T00:00:00Z","8",,"south",',
    ].join('\r\n');
    const reply = await upload(csv, 'text/csv');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ code: 200, message: 'OK', data: { series: 2, points: 4, lines: 4, seconds: expect.any(Number) } });
    expect(await stored('parcels_sent')).toEqual([
      { labels: { region: 'north', store: 's1' }, unit: 'count', t: '2026-11-01', value: 10 },
      { labels: { region: 'north', store: 's1' }, unit: 'count', t: '2026-11-02', value: 12 },
      { labels: { region: 'south' }, unit: null, t: '2026-11-01', value: 7.5 },
      { labels: { region: 'south' }, unit: null, t: '2026-11-02', value: 8 },
    ]);
    // Read back as every other series is.
    const read = await gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { labels points { value } } }', { q: { name: 'parcels_sent', labels: { region: 'south' }, from: '2026-10-01T00:00:00Z', to: '2026-12-01T00:00:00Z' } }, bearer(analyst));
    expect(read.body.data.metricSeries).toEqual([{ labels: { region: 'south' }, points: [{ value: 7.5 }, { value: 8 }] }]);
  });

  it('imports NDJSON, a time met twice keeping the later line, and streams progress then the envelope when asked', async () => {
    const lines = [
      { name: 'boxes_packed', labels: { site: 'a' }, timestamp: '2026-11-01T00:00:00Z', value: 1 },
      { name: 'boxes_packed', labels: { site: 'a' }, timestamp: '2026-11-01T00:00:00Z', value: 2 },
      { name: 'boxes_packed', labels: { site: 'b' }, timestamp: 1793491200000, value: 3, unit: 'boxes' },
    ];
    const reply = await upload(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n\n`, 'application/x-ndjson', { accept: 'application/x-ndjson' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/x-ndjson');
    const events = reply.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(events.at(-1)).toMatchObject({ code: 200, data: { series: 2, points: 2 } });
    expect((await stored('boxes_packed')).map((r) => [r.labels.site, r.value])).toEqual([['a', 2], ['b', 3]]);
  });

  it('refuses a file with bad lines, naming each line, and writes nothing of it', async () => {
    const csv = [
      'name,timestamp,value,region',
      'crates_moved,2026-11-01T00:00:00Z,5,north',
      'crates_moved,2026-11-02T00:00:00Z,lots,north',
      'crates_moved,2026-11-03T00:00:00Z,6,north',
      'crates_moved,yesterday,7,north',
      'Crates Moved,2026-11-05T00:00:00Z,7,north',
      'crates_moved,2026-11-06T00:00:00Z,1e20,north',
    ].join('\n');
    const reply = await upload(csv, 'text/csv');
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ code: 422, data: null, message: expect.stringContaining('not imported') });
    expect(reply.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/line/3/value', '/line/5/timestamp', '/line/6/name', '/line/7/value']);
    expect(reply.body.errors[0].detail).toContain('"lots"');
    expect(await stored('crates_moved')).toEqual([]);

    const header = await upload('metric,when,amount\ncrates_moved,2026-11-01T00:00:00Z,1\n', 'text/csv');
    expect(header.status).toBe(422);
    expect(header.body.errors[0]).toMatchObject({ pointer: '/line/1', detail: expect.stringContaining('name, timestamp and value') });
    const reserved = await upload('name,timestamp,value,__proto__\ncrates_moved,2026-11-01T00:00:00Z,1,x\n', 'text/csv');
    expect(reserved.status).toBe(422);
    const json = await upload('{"name":"crates_moved","timestamp":"2026-11-01T00:00:00Z","value":1}\n{not json}\n', 'application/x-ndjson');
    expect(json.status).toBe(422);
    expect(json.body.errors).toEqual([{ pointer: '/line/2', detail: expect.stringContaining('not a JSON object') }]);
    const unclosed = await upload('name,timestamp,value\ncrates_moved,"2026-11-01T00:00:00Z,1\n', 'text/csv');
    expect(unclosed.status).toBe(422);
    expect(await stored('crates_moved')).toEqual([]);
  });

  it('imports over what is stored: a series named again keeps its id and takes a new unit, a time stored again takes the new value', async () => {
    const first = await upload('name,timestamp,value,unit,dock\npallets_loaded,2026-11-01T00:00:00Z,1,,d1\npallets_loaded,2026-11-02T00:00:00Z,2,,d1\n', 'text/csv');
    expect(first.status).toBe(200);
    const [{ id }] = (await db.query<{ id: string }>(`select id from insight.metric_series where tenant_id = 't1' and name = 'pallets_loaded'`)).rows;
    const again = await upload('name,timestamp,value,unit,dock\npallets_loaded,2026-11-02T00:00:00Z,20,pallets,d1\npallets_loaded,2026-11-03T00:00:00Z,3,pallets,d1\npallets_loaded,2026-11-03T00:00:00Z,4,,d2\n', 'text/csv');
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ series: 2, points: 3 });
    expect((await stored('pallets_loaded')).map((r) => [r.labels.dock, r.unit, r.t, r.value])).toEqual([
      ['d1', 'pallets', '2026-11-01', 1], ['d1', 'pallets', '2026-11-02', 20], ['d1', 'pallets', '2026-11-03', 3], ['d2', null, '2026-11-03', 4],
    ]);
    expect((await db.query(`select 1 from insight.metric_series where tenant_id = 't1' and name = 'pallets_loaded' and id = $1`, [id])).rowCount).toBe(1);
  });

  it('writes a file of several batches whole: a time repeated batches later keeps the later line, and a bad last line leaves nothing of it', async () => {
    // 450,000 points: written in batches of 200,000 while the file is read (metric-import-store.ts).
    const body = (last: string) => {
      const lines = ['name,timestamp,value,lane'];
      for (let lane = 0; lane < 3000; lane++) for (let day = 0; day < 150; day++) lines.push(`forklift_trips,${1_790_000_000_000 + day * 86_400_000},${lane + day},l${lane}`);
      lines.push(last);
      return lines.join('\n');
    };
    const bad = await upload(body('forklift_trips,1790000000000,oops,l0'), 'text/csv');
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([{ pointer: '/line/450002/value', detail: expect.stringContaining('"oops"') }]);
    expect((await db.query(`select count(*)::int as n from insight.metric_point p join insight.metric_series s on s.tenant_id = p.tenant_id and s.id = p.series_id where s.tenant_id = 't1' and s.name = 'forklift_trips'`)).rows[0].n).toBe(0);
    expect((await db.query(`select 1 from insight.metric_series where tenant_id = 't1' and name = 'forklift_trips'`)).rowCount).toBe(0);

    const good = await upload(body('forklift_trips,1790000000000,-1,l0'), 'text/csv');
    expect(good.status).toBe(200);
    expect(good.body.data).toMatchObject({ series: 3000, points: 450_001, lines: 450_001 });
    const { rows } = await db.query<{ n: number; first: number; other: number }>(
      `select count(*)::int as n, max(p.value) filter (where s.labels->>'lane' = 'l0' and p.t = to_timestamp(1790000000)) as first,
              max(p.value) filter (where s.labels->>'lane' = 'l2999' and p.t = to_timestamp(1790000000 + 149 * 86400)) as other
         from insight.metric_point p join insight.metric_series s on s.tenant_id = p.tenant_id and s.id = p.series_id where s.tenant_id = 't1' and s.name = 'forklift_trips'`,
    );
    expect(rows[0]).toEqual({ n: 450_000, first: -1, other: 2999 + 149 });
  }, 120_000);

  it('answers a wrong content type, a missing token and a role without the right plainly', async () => {
    const text = await upload('name,timestamp,value\n', 'application/json');
    expect(text.status).toBe(400);
    expect(text.body.message).toContain('text/csv or application/x-ndjson');
    expect((await call(url(), { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'name,timestamp,value\n' })).status).toBe(401);
    const reviewer = await platform.token({ subject: 'rex', roles: ['reviewer'], tenants: ['t1'], sites: [] });
    expect((await upload('name,timestamp,value\nx_y,2026-11-01T00:00:00Z,1\n', 'text/csv', {}, reviewer)).status).toBe(403);
    const other = await upload('name,timestamp,value\nx_y,2026-11-01T00:00:00Z,1\n', 'text/csv', { 'x-svc-tenant-id': 't2' });
    expect(other.status).toBe(403);
    // The caller is checked before what it sent: a wrong type from a caller without the right is a 403, as on every route.
    expect((await upload('{}', 'application/json', { 'x-svc-tenant-id': 't2' })).status).toBe(403);
    expect((await upload('{}', 'application/json', {}, reviewer)).status).toBe(403);
    expect((await call(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect(await stored('x_y')).toEqual([]);
    const empty = await upload('name,timestamp,value\n', 'text/csv');
    expect(empty.status).toBe(422);
  });
});
