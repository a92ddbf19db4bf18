import { z } from 'zod';
import { ACTION_KINDS, type ActionKind } from './action.js';
import { proposalParamProblems } from './action-params.js';
import type { ProposedAction } from './report.js';

/**
 * The one check every proposal passes before it is stored, whoever made it (the report's rules
 * or a model through `propose_action`): a known kind on its kind's target, words a reviewer
 * reads, complete parameters (action-params.ts), an expected impact whose p10 ≤ p50 ≤ p90 over a
 * stated horizon, and a finding of the report it follows from.
 */

const finite = (name: string) => z.number({ error: `${name} must be a number` }).finite(`${name} must be finite`);

const impact = z
  .object({
    metric: z.string({ error: 'expectedImpact.metric is required' }).trim().min(1, 'expectedImpact.metric must not be empty').max(300),
    horizon: z.number({ error: 'expectedImpact.horizon must be a number' }).int('expectedImpact.horizon must be a whole number of steps').min(1, 'expectedImpact.horizon must be at least 1'),
    p10: finite('expectedImpact.p10'),
    p50: finite('expectedImpact.p50'),
    p90: finite('expectedImpact.p90'),
    method: z.string().trim().min(1, 'expectedImpact.method must not be empty').max(1000).optional(),
    horizonDays: z.number().int().min(1, 'expectedImpact.horizonDays must be at least 1').optional(),
    unit: z.string().trim().min(1).max(40).optional(),
  })
  .strict()
  .refine((i) => i.p10 <= i.p50 && i.p50 <= i.p90, { message: 'expectedImpact must have p10 ≤ p50 ≤ p90' });

const proposal = z
  .object({
    kind: z.enum(Object.keys(ACTION_KINDS) as [ActionKind, ...ActionKind[]], { error: `kind must be one of ${Object.keys(ACTION_KINDS).join(', ')}` }),
    title: z.string({ error: 'title is required' }).trim().min(1, 'title must not be empty').max(300, 'title must be at most 300 characters'),
    rationale: z.string({ error: 'rationale is required' }).trim().min(1, 'rationale must not be empty').max(2000, 'rationale must be at most 2000 characters'),
    targetType: z.string({ error: 'targetType is required' }),
    targetId: z.string({ error: 'targetId is required' }).trim().min(1, 'targetId must not be empty').max(300, 'targetId must be at most 300 characters'),
    targetName: z.string().trim().min(1, 'targetName must not be empty').max(500, 'targetName must be at most 500 characters').optional(),
    params: z.record(z.string(), z.unknown(), { error: 'params must be an object' }),
    expectedImpact: impact.nullable(),
    undoable: z.boolean().optional(),
    undo: z.string().trim().min(1).max(1000).optional(),
    finding: z.object({ index: z.number().int().min(0), title: z.string().min(1), detail: z.string() }).strict().optional(),
  })
  .strict();

/**
 * What is wrong with a proposal, each problem naming its field; empty when nothing is.
 * `findings` is the number of findings of the report it belongs to (its `finding` must be one).
 */
export function proposalProblems(p: unknown, findings?: number): string[] {
  const parsed = proposal.safeParse(p);
  if (!parsed.success) return parsed.error.issues.map((i) => (i.path.length && !i.message.startsWith(String(i.path[0])) ? `${i.path.join('.')}: ${i.message}` : i.message));
  const a = parsed.data;
  const out: string[] = [];
  if (a.targetType !== ACTION_KINDS[a.kind].target) out.push(`targetType must be ${ACTION_KINDS[a.kind].target} for ${a.kind}, not ${JSON.stringify(a.targetType)}`);
  out.push(...proposalParamProblems(a.kind, a.params).map((x) => `params.${x}`));
  if (a.finding && findings !== undefined && a.finding.index >= findings) out.push(`finding.index ${a.finding.index} is not a finding of the report (it has ${findings})`);
  return out;
}

/** A figure without floating-point dust (4355.740000000002 → 4355.74): ten significant digits are more than any impact means. */
const tidy = (x: number) => Number(x.toPrecision(10));

/**
 * The proposals that pass (their expected impact's p10–p50–p90 tidied, as stored and shown), and
 * a sentence per refused one naming its problems.
 */
export function checkedProposals(actions: readonly ProposedAction[], findings: number): { kept: ProposedAction[]; refused: string[] } {
  const kept: ProposedAction[] = [];
  const refused: string[] = [];
  for (const a of actions) {
    const problems = proposalProblems(a, findings);
    const i = a.expectedImpact;
    if (problems.length === 0) kept.push(i ? { ...a, expectedImpact: { ...i, p10: tidy(i.p10), p50: tidy(i.p50), p90: tidy(i.p90) } } : a);
    else refused.push(`"${String(a.title).slice(0, 120)}" (${String(a.kind)}) was left out: ${problems.slice(0, 5).join('; ')}.`);
  }
  return { kept, refused };
}
