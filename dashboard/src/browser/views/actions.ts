import { ApiError, rest } from '../api.js';
import { fill, h } from '../dom.js';
import { inUnit, num, sentenceCase, when } from '../format.js';
import { handle, state } from '../state.js';

export interface Action {
  actionId: string;
  jobId: string;
  kind: string;
  title: string;
  rationale: string;
  targetType: string;
  targetId: string;
  /** The target in the report's words (a lever in the catalog's, a page by its title); null when the analysis read nothing that names it. */
  targetName?: string | null;
  /** When the platform learned the target no longer exists: the proposal expired and cannot be approved. */
  targetGoneAt?: string | null;
  params: Record<string, unknown>;
  expectedImpact: { metric: string; horizon: number; p10: number; p50: number; p90: number; method?: string | null; horizonDays?: number | null; unit?: string | null } | null;
  /** Whether the change can be undone, and how (or why not), in words. */
  undoable?: boolean;
  undo?: string;
  status: string;
  expiresAt: string;
  decision: { reviewedBy: string | null; comment: string | null; decidedAt: string } | null;
  outcome: Record<string, unknown> | null;
}

/** A proposed action as a card a reviewer approves or rejects with a comment; it follows the action to its outcome. */
export function actionCard(action: Action, decided: () => void): HTMLElement {
  const card = h('article', { class: 'card', 'data-action': action.actionId, 'aria-label': action.title });
  renderCard(card, action, decided);
  return card;
}

function renderCard(card: HTMLElement, action: Action, decided: () => void, note?: { text: string; kind: 'conflict' | 'error' | 'info' }): void {
  card.setAttribute('data-status', action.status);
  const target = action.targetName ?? `${action.targetType} ${action.targetId}`;
  const body: (HTMLElement | null)[] = [
    h('h3', {}, h('span', { class: `badge ${action.status}` }, action.status), h('span', { class: 'title' }, action.title)),
    action.targetGoneAt
      ? h('div', { class: 'meta' }, `${action.kind} · target ${target} · no longer exists`)
      : h('div', { class: 'meta' }, `${action.kind} · target ${target} · expires ${when(action.expiresAt)}`),
    // Its last known name, and why it can no longer be decided.
    action.targetGoneAt ? h('p', { class: 'result error', 'data-target-gone': action.targetGoneAt }, `${sentenceCase(target)} no longer exists (found ${when(action.targetGoneAt)}): this proposal expired and cannot be approved.`) : null,
    h('p', {}, sentenceCase(action.rationale)),
    decisionFacts(action),
    h('details', {}, h('summary', {}, 'Parameters'), h('code', { class: 'args', 'aria-label': 'parameters' }, JSON.stringify(action.params, null, 1))),
    action.decision ? h('p', { class: 'meta' }, `Decided by ${action.decision.reviewedBy ?? '?'} ${when(action.decision.decidedAt)}${action.decision.comment ? `: “${action.decision.comment}”` : ''}`) : null,
    action.outcome ? outcomeOf(action) : null,
  ];
  if (action.status === 'PROPOSED') {
    const comment = h('textarea', { 'aria-label': `Comment on ${action.title}`, placeholder: 'Comment (optional)' });
    const approve = h('button', { class: 'primary', type: 'button' }, 'Approve');
    const reject = h('button', { type: 'button' }, 'Reject');
    const decide = async (verdict: 'approve' | 'reject') => {
      approve.disabled = reject.disabled = true;
      try {
        const result = await rest<Action>(`/api/v1/insight/actions/${action.actionId}/${verdict}`, { body: { reviewedBy: state.session?.subject, comment: comment.value || undefined } });
        renderCard(card, result, decided);
        if (result.status === 'APPROVED') void awaitOutcome(card, result.actionId, decided);
        decided();
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) {
          const current = await rest<Action>(`/api/v1/insight/actions/${action.actionId}`).catch(() => action);
          renderCard(card, current, decided, { text: `Someone else decided first (409): ${error.message}`, kind: 'conflict' });
          if (current.status === 'APPROVED') void awaitOutcome(card, current.actionId, decided);
          // Someone else is deciding: the rest of the page catches up with them too.
          decided();
        } else if (error instanceof ApiError && error.status === 401) handle(error);
        else renderCard(card, action, decided, { text: `Not decided: ${(error as Error).message}`, kind: 'error' });
      }
    };
    approve.addEventListener('click', () => void decide('approve'));
    reject.addEventListener('click', () => void decide('reject'));
    body.push(h('div', { class: 'decide' }, comment, h('div', { class: 'buttons' }, approve, reject)));
  }
  if (note) body.push(h('div', { class: `result ${note.kind}`, role: 'status' }, note.text));
  fill(card, ...body);
}

/**
 * What a reviewer weighs before deciding: the expected impact p10–p90 in its unit over its
 * horizon, how it was estimated, and whether (and how) the change can be undone.
 */
function decisionFacts(action: Action): HTMLElement | null {
  const impact = action.expectedImpact;
  const rows: [string, string][] = [];
  if (impact) {
    const horizon = impact.horizonDays ? `${num(impact.horizonDays, 0)} days` : `${num(impact.horizon, 0)} periods`;
    const unit = impact.unit ?? null;
    const range = impact.p10 !== impact.p90 ? ` (p10 ${inUnit(impact.p10, unit, true)} to p90 ${inUnit(impact.p90, unit, true)})` : '';
    rows.push(['Expected impact', `${inUnit(impact.p50, unit, true)} on ${impact.metric} over ${horizon}${range}`]);
    if (impact.method) rows.push(['Estimated by', impact.method]);
  }
  if (action.undoable !== undefined) rows.push(['Undo', `${action.undoable ? 'Can be undone' : 'Cannot be undone'}${action.undo ? `: ${action.undo}` : ''}`]);
  if (!rows.length) return null;
  return h('dl', { class: 'facts' }, ...rows.flatMap(([term, text]) => [h('dt', {}, term), h('dd', {}, text)]));
}

/** What executing the action did: a failure's reason in plain sight, the full record on demand. */
function outcomeOf(action: Action): HTMLElement {
  const failed = action.status === 'EXECUTION_FAILED';
  const reason = ['error', 'message', 'reason'].map((key) => action.outcome?.[key]).find((value): value is string => typeof value === 'string');
  return h(
    'details',
    { class: `result outcome ${failed ? 'error' : ''}`, open: failed },
    h('summary', {}, failed ? `Execution failed${reason ? `: ${reason}` : ''}` : action.status === 'EXPIRED' && reason ? `Expired: ${reason}` : 'Outcome'),
    h('code', { class: 'args' }, JSON.stringify(action.outcome, null, 1)),
  );
}

/** An approved action is carried out by a worker; the card follows it to its outcome. */
async function awaitOutcome(card: HTMLElement, actionId: string, decided: () => void): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const action = await rest<Action>(`/api/v1/insight/actions/${actionId}`).catch(() => undefined);
    if (action && action.status !== 'APPROVED') return renderCard(card, action, decided);
  }
}

/**
 * Cards already on the page brought up to date after a decision (here or by another reviewer):
 * each card whose action's status changed is drawn again; the others, and one a decision is
 * still following to its outcome (APPROVED), are left as they are.
 */
export function refreshCards(container: HTMLElement, actions: readonly Action[], decided: () => void): void {
  const byId = new Map(actions.map((a) => [a.actionId, a]));
  for (const card of container.querySelectorAll<HTMLElement>('article.card[data-action]')) {
    const fresh = byId.get(card.getAttribute('data-action') ?? '');
    const shown = card.getAttribute('data-status');
    if (fresh && fresh.status !== shown && shown !== 'APPROVED') renderCard(card, fresh, decided);
  }
}

/** Queue loads in flight: only the latest one's answer is drawn, so an older answer never overwrites a newer one. */
let queueLoads = 0;

/**
 * The review queue: every proposal of the tenant waiting for a decision (reviewers only), each
 * shown once: the open job's proposals are in its report, so the queue names how many wait there
 * instead of drawing them a second time.
 */
export async function loadQueue(target: HTMLElement, decided: () => void, openJobId?: string): Promise<void> {
  const load = ++queueLoads;
  try {
    const actions = await rest<Action[] | { actions: Action[] }>('/api/v1/insight/actions?status=PROPOSED&first=50');
    if (load !== queueLoads) return;
    const list = Array.isArray(actions) ? actions : actions.actions;
    const inReport = list.filter((a) => a.jobId === openJobId).length;
    const elsewhere = list.filter((a) => a.jobId !== openJobId);
    const there = inReport ? h('p', { class: 'muted', 'data-in-report': String(inReport) }, `${inReport === 1 ? '1 proposal of the open report waits' : `${inReport} proposals of the open report wait`} for a decision in its cards.`) : null;
    if (elsewhere.length) fill(target, there, ...elsewhere.map((a) => actionCard(a, decided)));
    else fill(target, there ?? h('p', { class: 'muted' }, 'Nothing waits for a decision.'));
  } catch (error) {
    if (load !== queueLoads) return;
    if (error instanceof ApiError && error.status === 403) fill(target, h('p', { class: 'muted' }, 'Reviewers see pending proposals here.'));
    else handle(error);
  }
}
