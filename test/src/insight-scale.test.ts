import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { gql } from './support/http.js';
import { DAY, engineFinding, tenantClient, today } from './support/insight-tenant.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * An analysis at a real business's size, through the API, on a pool of two connections: 20,000
 * labelled series (5 data centres × 40 provinces × 10 ISPs × 10 channels, 15 days each, as a CDN
 * keeps its traffic), one province falling 80 % yesterday. Before, every series' points were read
 * with a query of their own, all at once, and the job failed with "an internal error" waiting for
 * a connection; now each read is one grouped query whatever the number of series.
 */

let platform: TestPlatform;
let db: pg.Client;
const TENANT = 'edgeco';
const DAYS = 15;
const SERIES = 5 * 40 * 10 * 10;

beforeAll(async () => {
  platform = await startTestPlatform({ DB_POOL_MAX: '2' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  // Seeded in SQL (the ingest API is measured by bench/insight-scale.js): the series, then 15 days of points each.
  await db.query(
    `insert into insight.metric_series (id, tenant_id, name, labels, labels_key, unit)
     select gen_random_uuid(), $1, 'edge_gigabytes', jsonb_build_object('channel', c, 'dc', d, 'isp', i, 'province', p),
            format('edge_gigabytes{channel=%s,dc=%s,isp=%s,province=%s}', to_json(c), to_json(d), to_json(i), to_json(p)), 'count'
       from (select 'dc' || n as d from generate_series(1, 5) n) dcs,
            (select 'p' || lpad(n::text, 2, '0') as p from generate_series(1, 40) n) provinces,
            (select 'isp' || n as i from generate_series(1, 10) n) isps,
            (select 'ch' || n as c from generate_series(1, 10) n) channels`,
    [TENANT],
  );
  // A steady level per series with a little daily noise; province p07 carries 20 % of its level yesterday.
  await db.query(
    `insert into insight.metric_point (tenant_id, series_id, t, value)
     select s.tenant_id, s.id, to_timestamp(($2::bigint - (k * 86400000)) / 1000.0),
            round(((50 + abs(hashtext(s.labels_key)) % 100) * (1 + 0.03 * sin(k * 1.7 + abs(hashtext(s.labels_key)) % 13))
                   * case when k = 1 and s.labels->>'province' = 'p07' then 0.2 else 1 end)::numeric, 2)::float8
       from insight.metric_series s, generate_series(1, $3::int) k
      where s.tenant_id = $1`,
    [TENANT, today, DAYS],
  );
  const { rows } = await db.query('select count(*)::int as n from insight.metric_point p join insight.metric_series s on s.tenant_id = p.tenant_id and s.id = p.series_id where s.tenant_id = $1', [TENANT]);
  expect(rows[0].n).toBe(SERIES * DAYS);
}, 120_000);

afterAll(async () => {
  await db?.end();
  await platform?.close();
});

describe('an analysis over 20,000 series on a pool of two connections', () => {
  it('completes and names the province that fell, with its share of the fall', async () => {
    const analyst = await platform.token({ subject: 'nina', roles: ['analyst'], tenants: [TENANT], sites: [] }, 1800);
    const job = await tenantClient(platform.bridge, () => analyst).ask('Why did edge gigabytes drop yesterday?');
    expect([job.status, job.error ?? null]).toEqual(['COMPLETED', null]);
    const finding = engineFinding(job);
    expect(finding.status).toBe('analysed');
    expect(finding.premise.relativeChange).toBeLessThan(-0.01);
    const top = finding.causes[0];
    expect(top).toMatchObject({ view: 'segment', labels: { province: 'p07' } });
    expect(top.share).toBeGreaterThan(0.9);
    expect(job.report.judgment).toContain('province=p07');
    // The catalog the agent read is the metric summed up where the data is, not 20,000 entries.
    const listed = job.steps.find((st: { kind: string; toolName: string | null }) => st.kind === 'TOOL_RESULT' && st.toolName === 'list_metrics').result;
    expect(listed.metrics.filter((m: { source: string }) => m.source === 'store')).toEqual([expect.objectContaining({
      name: 'edge_gigabytes', labels: {}, source: 'store', series: SERIES, points: SERIES * DAYS,
      labelValueCounts: { channel: 10, dc: 5, isp: 10, province: 40 },
      labelValues: expect.objectContaining({ dc: ['dc1', 'dc2', 'dc3', 'dc4', 'dc5'], province: expect.arrayContaining(['p01', 'p07']) }),
    })]);
    expect(listed.metrics.find((m: { name: string }) => m.name === 'edge_gigabytes').labelValues.province).toHaveLength(20);
  }, 180_000);

  it("reads a lookup of the province's 500 series in one query, each with its points", async () => {
    const analyst = await platform.token({ subject: 'nina', roles: ['analyst'], tenants: [TENANT], sites: [] });
    const yesterday = new Date(today - DAY).toISOString();
    const reply = await gql(platform.router, 'query($q: JSONObject!) { metricSeries(query: $q) { labels points { timestamp value } } }', { q: { name: 'edge_gigabytes', labels: { province: 'p07' }, from: yesterday, to: new Date(today).toISOString() } }, { authorization: `Bearer ${analyst}` });
    expect(reply.body.errors).toBeUndefined();
    const series = reply.body.data.metricSeries as { labels: Record<string, string>; points: { timestamp: string }[] }[];
    expect(series).toHaveLength(500);
    expect(series.every((s) => s.labels.province === 'p07' && s.points.length === 1 && s.points[0]!.timestamp === yesterday)).toBe(true);
  });
});
