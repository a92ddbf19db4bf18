import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { engineFinding, tenantClient, today } from './support/insight-tenant.js';
import { startTestPlatform, type TestPlatform } from './support/platform.js';

/**
 * A question over more series than the configured limit (SVC_INSIGHT_MAX_LEAVES, here 1,000)
 * is answered, not failed: the premise, the expected range and the change point come from the
 * total, and the answer names the limit that kept the drill-down by segment out and what to do.
 */

let platform: TestPlatform;
let db: pg.Client;
const TENANT = 'bigco';

beforeAll(async () => {
  platform = await startTestPlatform({ SVC_INSIGHT_MAX_LEAVES: '1000' });
  db = new pg.Client({ connectionString: platform.databaseUrl });
  await db.connect();
  // 1,200 series (3 regions × 20 stores × 20 shelves), 30 days each; store s07 at 20 % yesterday.
  await db.query(
    `insert into insight.metric_series (id, tenant_id, name, labels, labels_key, unit)
     select gen_random_uuid(), $1, 'shelf_scans', jsonb_build_object('region', r, 'store', s, 'shelf', h),
            format('shelf_scans{region=%s,shelf=%s,store=%s}', to_json(r), to_json(h), to_json(s)), 'count'
       from (select 'r' || n as r from generate_series(1, 3) n) regions,
            (select 's' || lpad(n::text, 2, '0') as s from generate_series(1, 20) n) stores,
            (select 'h' || n as h from generate_series(1, 20) n) shelves`,
    [TENANT],
  );
  await db.query(
    `insert into insight.metric_point (tenant_id, series_id, t, value)
     select s.tenant_id, s.id, to_timestamp(($2::bigint - (k::bigint * 86400000)) / 1000.0),
            (40 + abs(hashtext(s.labels_key)) % 20) * case when k = 1 and s.labels->>'store' = 's07' then 0.2 else 1 end
       from insight.metric_series s, generate_series(1, 30) k where s.tenant_id = $1`,
    [TENANT, today],
  );
}, 120_000);

afterAll(async () => {
  await db?.end();
  await platform?.close();
});

describe('an analysis past the configured number of series', () => {
  it('answers from the total and names the limit that kept the drill-down out', async () => {
    const analyst = await platform.token({ subject: 'lena', roles: ['analyst'], tenants: [TENANT], sites: [] });
    const job = await tenantClient(platform.bridge, () => analyst).ask('Why did shelf scans drop yesterday?');
    expect([job.status, job.error ?? null]).toEqual(['COMPLETED', null]);
    const finding = engineFinding(job);
    expect(finding).toMatchObject({ status: 'analysed', premise: { observed: 'down' } });
    expect(finding.premise.relativeChange).toBeLessThan(-0.01);
    expect(finding.segments).toBeUndefined();
    const analysed = job.steps.find((st: { kind: string; toolName: string | null }) => st.kind === 'TOOL_RESULT' && st.toolName === 'analyse_change').result;
    expect(analysed.limits).toEqual([expect.stringContaining('The drill-down by segment was skipped: shelf_scans has more than 1,000 labelled series, the limit SVC_INSIGHT_MAX_LEAVES sets')]);
    expect(analysed.answer + analysed.statements.map((s: { text: string }) => s.text).join(' ')).toContain('No declared formula or driver of shelf_scans explains the change (its labels were not examined)');
    // The reader sees it in the report, with what to do.
    const said = JSON.stringify(job.report);
    expect(said).toContain('SVC_INSIGHT_MAX_LEAVES');
    expect(said).toContain('ask about part of it');
  }, 120_000);
});
