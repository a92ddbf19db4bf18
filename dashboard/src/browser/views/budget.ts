import { ApiError, graphql } from '../api.js';
import { fill, h } from '../dom.js';
import { num, percentOf, usd } from '../format.js';
import { handle } from '../state.js';

const AGENT = `query DashboardAgent($code: String!) {
  agent(code: $code) { code budget { allocatedUsd currentUsageUsd burnRatePercent remainingUsd status hardLimitEnabled } usage { day requests costUsd } }
}`;

/** The gateway's budget statuses in words a reviewer reads (the code stays in the title). */
const STATUS_WORDS: Record<string, string> = { HEALTHY: 'Healthy', WARNING_THRESHOLD_EXCEEDED: 'Past its alert threshold' };

interface Agent {
  budget: { allocatedUsd: number; currentUsageUsd: number; burnRatePercent: number; remainingUsd: number; status: string; hardLimitEnabled: boolean };
  usage: { day: string; requests: number; costUsd: number }[];
}

/**
 * What the analysis agent's thinking costs the signed-in tenant, from the model gateway: the
 * tenant's share of the analysis agent (`insight:<tenant>`), with its own budget.
 */
export async function loadBudget(target: HTMLElement, tenant: string | null): Promise<void> {
  if (!tenant) return fill(target, h('p', { class: 'muted' }, 'Choose a tenant to see what its analyses cost.'));
  try {
    const { agent } = await graphql<{ agent: Agent | null }>(AGENT, { code: `insight:${tenant}` });
    if (!agent) return fill(target, h('p', { class: 'muted' }, `The analysis agent has not thought for ${tenant} yet this month.`));
    const days = new Set(agent.usage.map((u) => u.day)).size || 1;
    const spent = agent.usage.reduce((sum, u) => sum + u.costUsd, 0);
    const requests = agent.usage.reduce((sum, u) => sum + u.requests, 0);
    fill(
      target,
      h(
        'dl',
        { class: 'budget' },
        h('dt', {}, 'Allocated'), h('dd', {}, agent.budget.allocatedUsd ? usd(agent.budget.allocatedUsd) : 'no limit set'),
        h('dt', {}, 'Used this month'), h('dd', {}, usd(agent.budget.currentUsageUsd)),
        h('dt', {}, 'Burn rate'), h('dd', {}, `${percentOf(agent.budget.burnRatePercent / 100)} of the allocation`),
        h('dt', {}, 'Per active day'), h('dd', {}, `${usd(spent / days)} (${num(requests)} model calls)`),
        h('dt', {}, 'Status'), h('dd', {}, h('span', { class: 'badge', title: agent.budget.status }, STATUS_WORDS[agent.budget.status] ?? agent.budget.status), agent.budget.hardLimitEnabled ? ' hard limit' : ''),
      ),
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) handle(error);
    else fill(target, h('p', { class: 'muted' }, `Budget unavailable: ${(error as Error).message}`));
  }
}
