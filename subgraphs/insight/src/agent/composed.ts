import type { Chart, Evidence, Finding, ProposedAction } from '../domain/report.js';

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

/** What one tool call returned, with the step holding it. */
export interface ToolOutcome {
  step: number;
  tool: string;
  data: unknown;
  summary: string;
}
