import type { BudgetChange } from './budget.js';
import type { UsageEntry } from './usage.js';

/**
 * The embedded demo's part in the model gateway: agent `shop-assistant`, the demo shop's support
 * assistant, has a $60 monthly budget with the hard limit on and spends at 1.4 times the pace that
 * budget allows, so from the second half of a month's first day its month-end projection passes
 * the budget and "Is the budget enough for our model spend this month?" proposes raising it. Its
 * requests (two an hour since the month began, stopping at 97 % of the budget, where a real
 * agent would soon be refused) are demo data, priced as `fast-track` on a paid upstream model;
 * the ledger names that model `demo-model` and the deployment `demo-seed`, so they never pass for
 * traffic this gateway served.
 */
export const DEMO_AGENT: Readonly<Required<Pick<BudgetChange, 'agentCode' | 'monthlyBudgetUsd' | 'hardLimitEnabled' | 'alertThresholdPercent'>>> & { tenantId: string } = {
  agentCode: 'shop-assistant',
  /** The demo shop's own agent: its admins manage it, and its analyses read it. */
  tenantId: 'demo',
  monthlyBudgetUsd: 60,
  hardLimitEnabled: true,
  alertThresholdPercent: 80,
};

/** Spend pace against what the budget allows per day. */
export const DEMO_PACE = 1.4;
/** The seeded requests stop before their sum passes this share of the budget. */
export const DEMO_SPEND_CAP = 0.97;
const REQUESTS_PER_HOUR = 2;
/** $2.50 per million prompt tokens, $10 per million completion tokens, a completion a quarter of its prompt. */
const USD_PER_PROMPT_TOKEN = 2.5e-6 + 10e-6 / 4;

const HOUR = 3_600_000;

export interface DemoRequest {
  at: Date;
  entry: UsageEntry;
}

/** The demo agent's requests from the start of `now`'s month (UTC) until `now`, drawn from `random`. */
export function demoUsage(now: Date, random: () => number): DemoRequest[] {
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
  const perRequest = (DEMO_AGENT.monthlyBudgetUsd * DEMO_PACE) / daysInMonth / 24 / REQUESTS_PER_HOUR;
  const cap = DEMO_AGENT.monthlyBudgetUsd * DEMO_SPEND_CAP;
  const out: DemoRequest[] = [];
  let spent = 0;
  for (let hour = monthStart; hour < now.getTime(); hour += HOUR) {
    for (let i = 0; i < REQUESTS_PER_HOUR; i++) {
      const at = hour + Math.floor(random() * HOUR);
      // Between half and one and a half times the mean, so a day's sum varies a little.
      const promptTokens = Math.round((perRequest * (0.5 + random())) / USD_PER_PROMPT_TOKEN);
      const completionTokens = Math.round(promptTokens / 4);
      const costUsd = Math.round((promptTokens * 2.5e-6 + completionTokens * 10e-6) * 1e8) / 1e8;
      if (at >= now.getTime()) continue;
      if (spent + costUsd > cap) return out.sort((a, b) => a.at.getTime() - b.at.getTime());
      spent += costUsd;
      out.push({ at: new Date(at), entry: { kind: 'chat', requestedModel: 'fast-track', model: 'demo-model', deployment: 'demo-seed', promptTokens, completionTokens, costUsd, cached: false, outcome: 'ok' } });
    }
  }
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}
