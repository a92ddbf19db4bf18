import { SvcError } from '@svc/kit';
import { z } from 'zod';
import { ACTION_KINDS, type ActionKind } from '../domain/action.js';
import { proposalProblems } from '../domain/proposal-check.js';
import type { ProposedAction } from '../domain/report.js';
import { defineTool } from './tool.js';

const kinds = Object.keys(ACTION_KINDS) as [ActionKind, ...ActionKind[]];

/**
 * A model's own proposal (the agent's tool only: an MCP client reads, it does not propose). The
 * arguments are flat, as models fill them best; they become a proposal that passes the one check
 * every proposal passes (domain/proposal-check.ts), so a bad kind, target, parameter or impact
 * comes back to the model as an error naming it, and nothing is stored. The report links it to
 * the finding `follows_from` names (a finding's title, or words of its detail) when it composes.
 */
export const proposeAction = defineTool({
  name: 'propose_action',
  description: `Proposes an action for a reviewer to approve, following from a finding of this analysis. Kinds and their targets: ${kinds.map((k) => `${k} (${ACTION_KINDS[k].target})`).join(', ')}. params_json is the kind's parameters as a JSON object (e.g. CONTENT_RESTORE {"siteKey":"shop","version":6}; EXTERNAL {"lever":"ad_spend","change":{"metric":"ad_spend","changePercent":10},"summary":"..."}).`,
  input: z.object({
    kind: z.enum(kinds),
    title: z.string().min(1).max(300).describe('What to do, in a few words.'),
    rationale: z.string().min(1).max(2000).describe('Why, citing the finding\'s figures.'),
    target_id: z.string().min(1).max(300).describe('The content id, crawl job id, agent code or external lever.'),
    params_json: z.string().max(4000).default('{}').describe('The kind\'s parameters as a JSON object.'),
    impact_metric: z.string().max(300).default('').describe('The metric the action moves; empty when no impact can be stated.'),
    impact_horizon_days: z.number().int().min(1).max(366).default(7),
    impact_p10: z.number().finite().optional(),
    impact_p50: z.number().finite().optional(),
    impact_p90: z.number().finite().optional(),
    impact_method: z.string().max(1000).default('').describe('How the impact was estimated.'),
    follows_from: z.string().max(300).default('').describe('The finding it follows from: its title or words of its detail.'),
  }),
  async run(_ctx, args) {
    let params: unknown;
    try {
      params = JSON.parse(args.params_json);
    } catch {
      throw new SvcError('BAD_USER_INPUT', `params_json is not JSON: ${JSON.stringify(args.params_json.slice(0, 80))}`);
    }
    const { p10, p50, p90 } = { p10: args.impact_p10, p50: args.impact_p50, p90: args.impact_p90 };
    const impact = args.impact_metric && p50 !== undefined
      ? { metric: args.impact_metric, horizon: args.impact_horizon_days, horizonDays: args.impact_horizon_days, p10: p10 ?? p50, p50, p90: p90 ?? p50, ...(args.impact_method ? { method: args.impact_method } : {}) }
      : null;
    const proposal: ProposedAction = {
      kind: args.kind,
      title: args.title,
      rationale: args.rationale,
      targetType: ACTION_KINDS[args.kind].target,
      targetId: args.target_id,
      params: (params ?? {}) as Record<string, unknown>,
      expectedImpact: impact,
    };
    const problems = proposalProblems(proposal);
    if (problems.length) throw new SvcError('BAD_USER_INPUT', `The proposal was not made: ${problems.join('; ')}`);
    return {
      data: { proposal, followsFrom: args.follows_from },
      summary: `Proposed ${args.kind} on ${proposal.targetType} ${args.target_id}: ${args.title}.`,
    };
  },
});
