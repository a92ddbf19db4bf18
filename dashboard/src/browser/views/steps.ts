import { h } from '../dom.js';
import { duration, num, usd, when } from '../format.js';

export interface Step {
  seq: number;
  kind: string;
  title: string;
  detail: string | null;
  toolName: string | null;
  toolArgs: Record<string, unknown> | null;
  resultSummary: string | null;
  status: string | null;
  startedAt: string;
  durationMs: number | null;
  tokens: number | null;
  costUsd: number | null;
}

const KIND: Record<string, string> = { STATUS: 'Status', PLAN: 'Plan', TOOL_CALL: 'Tool call', TOOL_RESULT: 'Result', OBSERVATION: 'Observation', REPORT: 'Report' };

/**
 * One reasoning step on one line (number, kind, title, duration); its detail, the tool's
 * arguments and the result open on demand, so a long run stays a short list.
 */
export function stepItem(step: Step): HTMLLIElement {
  const meta = [step.durationMs !== null ? duration(step.durationMs) : null, step.tokens ? `${num(step.tokens)} tokens` : null, step.costUsd ? usd(step.costUsd) : null].filter(Boolean).join(' · ');
  const body: (Node | string)[] = [];
  const text = step.kind === 'TOOL_RESULT' ? step.resultSummary : step.detail;
  if (text) body.push(h('p', {}, text));
  if (step.toolArgs && Object.keys(step.toolArgs).length) body.push(h('p', { class: 'muted' }, `${step.toolName ?? 'tool'} arguments`), h('code', { class: 'args', 'aria-label': 'arguments' }, JSON.stringify(step.toolArgs, null, 1)));
  body.push(h('p', { class: 'muted' }, `Started ${when(step.startedAt)}`));
  return h(
    'li',
    { class: step.kind, 'data-seq': step.seq },
    h(
      'details',
      {},
      h('summary', {}, h('span', { class: 'step-kind' }, `${step.seq}. ${KIND[step.kind] ?? step.kind}`), h('span', { class: 'step-title' }, step.title), meta ? h('span', { class: 'step-meta' }, meta) : null),
      h('div', { class: 'step-body' }, ...body),
    ),
  );
}
