import { describe, expect, it } from '@jest/globals';
import { seededRandom } from '@svc/kit';
import { DEMO_AGENT, DEMO_SPEND_CAP, demoUsage } from './demo-usage.js';

const sum = (rows: ReturnType<typeof demoUsage>) => rows.reduce((s, r) => s + r.entry.costUsd, 0);

describe('the demo agent\'s spend this month', () => {
  it('runs ahead of its budget on every day of a month from the second half of the first, and never passes the cap', () => {
    for (const day of [1, 2, 10, 20, 25, 29]) {
      const now = new Date(Date.UTC(2026, 10, day, 18));
      const rows = demoUsage(now, seededRandom(7));
      const elapsedDays = (now.getTime() - Date.UTC(2026, 10, 1)) / 86_400_000;
      // What read_budgets projects: the month's spend so far extended to its 30 days.
      const projected = (sum(rows) / elapsedDays) * 30;
      expect(projected).toBeGreaterThan(DEMO_AGENT.monthlyBudgetUsd);
      expect(sum(rows)).toBeLessThanOrEqual(DEMO_AGENT.monthlyBudgetUsd * DEMO_SPEND_CAP);
      expect(rows.every((r) => r.at.getTime() < now.getTime() && r.at.getTime() >= Date.UTC(2026, 10, 1))).toBe(true);
    }
  });

  it('writes requests named as demo data, priced by their tokens, the same from the same seed', () => {
    const now = new Date('2026-11-25T12:00:00Z');
    const rows = demoUsage(now, seededRandom(7));
    expect(rows.length).toBeGreaterThan(24 * 2 * 10);
    for (const { entry } of rows.slice(0, 50)) {
      expect(entry).toMatchObject({ kind: 'chat', requestedModel: 'fast-track', model: 'demo-model', deployment: 'demo-seed', outcome: 'ok', cached: false });
      expect(entry.costUsd).toBeCloseTo(entry.promptTokens * 2.5e-6 + entry.completionTokens * 10e-6, 6);
    }
    expect(demoUsage(now, seededRandom(7))).toEqual(rows);
  });
});
