import { expect } from '@jest/globals';
import { seededRandom } from '@svc/kit/random';
import { eventually } from './eventually.js';
import { call } from './http.js';

/**
 * A tenant's side of the analysis service through the bridge: ingest series (with what they
 * mean), ask a question and wait for the job's end, approve an action and wait for it to
 * settle. Plus the days a planted cause is dated by: "last week" is the last complete ISO week.
 */

export const DAY = 86_400_000;
export const today = Math.floor(Date.now() / DAY) * DAY;
export const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
/** Monday of the last complete ISO week. */
export const lastMonday = today - (((new Date(today).getUTCDay() + 6) % 7) + 7) * DAY;

export interface Series {
  name: string;
  labels: Readonly<Record<string, string>>;
  points: readonly { t: number; value: number }[];
}

/**
 * A spend-like daily series: a level that changes every 1-4 weeks (campaign bursts, so an
 * elasticity can be estimated), around `level`, over `days` days ending yesterday; `plant`
 * multiplies a day's value. The last `steady` days hold the level 1.
 */
export function bursts(level: number, days: number, seed: number, plant: (t: number) => number = () => 1, steady = 0): { t: number; value: number }[] {
  const random = seededRandom(seed);
  const out: { t: number; value: number }[] = [];
  let factor = 1;
  let until = 0;
  for (let i = 0; i < days; i++) {
    const t = today - (days - i) * DAY;
    if (i >= until) {
      factor = 0.6 + 0.8 * random();
      until = i + 7 + Math.floor(random() * 21);
    }
    const held = i >= days - steady ? 1 : factor;
    out.push({ t, value: level * held * (1 + 0.05 * (random() - 0.5)) * plant(t) });
  }
  return out;
}

export function tenantClient(bridge: string, token: () => string) {
  const headers = () => ({ authorization: `Bearer ${token()}` });
  return {
    /** Stores series (50 a request) with the definitions of what they mean. */
    async ingest(series: readonly Series[], unit: string, metrics: readonly Record<string, unknown>[] = []) {
      for (let i = 0; i < series.length; i += 50) {
        const batch = series.slice(i, i + 50).map((s) => ({ name: s.name, labels: s.labels, unit, points: s.points.map((p) => ({ timestamp: p.t, value: Math.round(p.value * 100) / 100 })) }));
        const reply = await call(`${bridge}/api/v1/insight/metrics`, { headers: headers(), json: { series: batch, ...(i === 0 && metrics.length ? { metrics } : {}) } });
        expect(reply.status).toBe(200);
      }
    },

    /** Asks a question and waits for the job to end; the whole job. */
    async ask(prompt: string): Promise<any> {
      const created = await call(`${bridge}/api/v1/insight/jobs`, { headers: headers(), json: { prompt } });
      expect(created.status).toBe(202);
      return eventually(async () => {
        const reply = await call(`${bridge}/api/v1/insight/jobs/${created.body.data.jobId}`, { headers: headers() });
        return ['COMPLETED', 'FAILED'].includes(reply.body.data.status) ? reply.body.data : undefined;
      }, 60_000, 'the analysis to end');
    },
  };
}

/** A reviewer's side: approve an action, and wait until it is EXECUTED or EXECUTION_FAILED. */
export function reviewerClient(bridge: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const url = (id: string) => `${bridge}/api/v1/insight/actions/${id}`;
  return {
    async approve(id: string) {
      const reply = await call(`${url(id)}/approve`, { headers, json: { comment: 'planted' } });
      expect(reply.status).toBe(200);
    },
    settled: (id: string) =>
      eventually(async () => {
        const reply = await call(url(id), { headers });
        return ['EXECUTED', 'EXECUTION_FAILED'].includes(reply.body.data.status) ? reply.body.data : undefined;
      }, 30_000, `action ${id} to settle`),
  };
}

/** The engine's finding, as the job's analyse_change step holds it. */
export function engineFinding(job: { steps: { kind: string; toolName: string | null; result: any }[] }): any {
  return job.steps.find((s) => s.kind === 'TOOL_RESULT' && s.toolName === 'analyse_change')?.result?.finding;
}
