import { isAgentTool, type ToolData } from '../tools/agent-tools.js';
import type { Chart, Evidence, Finding, ProposalFinding, ProposedAction } from '../domain/report.js';

/** A report being composed from tool outcomes: findings, their evidence, charts and proposals. */
export interface Composed {
  findings: Finding[];
  evidence: Evidence[];
  charts: Chart[];
  actions: ProposedAction[];
}

export function addEvidence(c: Composed, e: Evidence): number {
  c.evidence.push(e);
  return c.evidence.length - 1;
}

/** One tool's result in a job, its `data` typed by the tool's name (tools/agent-tools.ts `ToolData`). */
export type ToolOutcome<K extends keyof ToolData = keyof ToolData> = { [T in K]: { step: number; tool: T; data: ToolData[T]; summary: string } }[K];

/**
 * A tool result step as the outcome the report reads. The result of one of the agent's tools
 * holds what that tool's run returned (run-job writes it, as JSON, and nothing else writes a
 * result step), so its data is taken as that tool's: the one place a stored result is typed. A
 * failed call (`{error}`) or a tool the agent does not have is no outcome.
 */
export function outcomeOf(step: number, tool: string, data: unknown, summary: string): ToolOutcome | undefined {
  if (!isAgentTool(tool) || !data || typeof data !== 'object' || 'error' in data) return undefined;
  return { step, tool, data, summary } as ToolOutcome;
}

/**
 * The finding a proposal follows from, as it cites it: the last finding titled `title` (whose
 * detail contains `naming`, when given) at or after `from`, else the finding at `from`.
 */
export function cite(c: Composed, from: number, title: string, naming?: string): ProposalFinding | undefined {
  let index = -1;
  for (let i = c.findings.length - 1; i >= from && index < 0; i--) {
    const f = c.findings[i]!;
    if (f.title === title && (naming === undefined || f.detail.includes(naming))) index = i;
  }
  return citeAt(c, index < 0 ? from : index);
}

/** The finding at `index` as a proposal cites it. */
export function citeAt(c: Composed, index: number): ProposalFinding | undefined {
  const f = c.findings[index];
  return f ? { index, title: f.title, detail: f.detail } : undefined;
}
