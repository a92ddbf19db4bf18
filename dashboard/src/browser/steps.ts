import { h, time } from './dom.js';

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

/** One reasoning step as a list item: what kind, its title, arguments and a readable result. */
export function stepItem(step: Step): HTMLLIElement {
  const meta = [step.durationMs !== null ? `${step.durationMs} ms` : null, step.tokens ? `${step.tokens} tokens` : null, time(step.startedAt)].filter(Boolean).join(' · ');
  const body: (Node | string)[] = [];
  if (step.toolArgs && Object.keys(step.toolArgs).length) body.push(h('code', { class: 'args', 'aria-label': 'arguments' }, JSON.stringify(step.toolArgs, null, 1)));
  const text = step.kind === 'TOOL_RESULT' ? step.resultSummary : step.detail;
  if (text) body.push(text);
  return h(
    'li',
    { class: step.kind, 'data-seq': step.seq },
    h('div', { class: 'step-head' }, h('span', { class: 'step-kind' }, `${step.seq}. ${KIND[step.kind] ?? step.kind}`), h('span', { class: 'step-title' }, step.title), h('span', { class: 'step-meta' }, meta)),
    body.length ? h('div', { class: 'step-body' }, ...body) : null,
  );
}
