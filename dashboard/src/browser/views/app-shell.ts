import { rest, type Session } from '../api.js';
import { fill, h } from '../dom.js';
import { currentJobId, DEFAULT_CREDENTIALS_WARNING, showBanner, state } from '../state.js';
import { loadQueue } from './actions.js';
import { askForm } from './ask.js';
import { loadBudget } from './budget.js';
import { jobList } from './job-list.js';
import { jobView } from './job.js';
import { tenantChooser } from './tenant.js';

let expiryTimer: number | undefined;
let queueTimer: number | undefined;
/** How often the review queue is read again while the canvas is open, ms. */
const QUEUE_REFRESH_MS = 30_000;
let closeJob: (() => void) | undefined;

/**
 * The analysis canvas: a header (who, which tenant, sign out), then ask and past jobs, the open
 * job (report, actions, steps) and the review queue with the budget. Everything comes from the
 * bridge and the router through the dashboard's origin; the page holds no rules.
 */
export async function showApp(app: HTMLElement, session: Session): Promise<void> {
  state.session = session;
  showBanner(session.defaultCredentials ? DEFAULT_CREDENTIALS_WARNING : null);
  window.clearTimeout(expiryTimer);
  expiryTimer = window.setTimeout(() => state.signedOut('Your session expired; sign in again.'), Math.max(0, session.expiresAt - Date.now()));
  const logout = h('button', { type: 'button' }, 'Sign out');
  logout.addEventListener('click', async () => {
    await rest('/session', { method: 'DELETE' }).catch(() => undefined);
    state.signedOut('You signed out.');
  });
  const queue = h('div', { class: 'queue' });
  const budget = h('div', { class: 'budget-body' });
  const jobs = jobList();
  // After every decision and every finished job: the job list, the queue, the budget and the open report's cards.
  const refreshSide = () => void Promise.all([jobs.load(), loadQueue(queue, refreshSide, currentJobId()), loadBudget(budget, session.tenant), job.refreshActions()]);
  const job = jobView(refreshSide);
  // Proposals from other jobs and other reviewers' decisions arrive without a click.
  window.clearInterval(queueTimer);
  queueTimer = window.setInterval(() => void loadQueue(queue, refreshSide, currentJobId()), QUEUE_REFRESH_MS);
  closeJob = () => job.open(undefined);
  const header = h(
    'header',
    { class: 'top' },
    h('h1', {}, 'Svc Platform · Analysis'),
    h('span', { class: 'who' }, `${session.subject} (${session.roles.join(', ') || 'no roles'})`),
    tenantChooser(session),
    logout,
  );
  fill(
    app,
    header,
    h(
      'main',
      { class: 'layout' },
      h('div', { class: 'side' }, h('section', { class: 'panel', 'aria-label': 'Ask' }, h('h2', {}, 'Ask'), askForm(jobs.load)), jobs.element),
      job.element,
      h('div', { class: 'side' }, h('section', { class: 'panel', 'aria-label': 'Review queue' }, h('h2', {}, 'Waiting for a decision'), queue), h('section', { class: 'panel', 'aria-label': 'Analysis budget' }, h('h2', {}, 'What thinking costs'), budget)),
    ),
  );
  const openFromHash = () => {
    job.open(currentJobId());
    jobs.render();
    void loadQueue(queue, refreshSide, currentJobId());
  };
  window.onhashchange = openFromHash;
  state.refresh = () => void showApp(app, state.session!);
  openFromHash();
  await Promise.all([jobs.load(), loadBudget(budget, session.tenant)]);
}

/** Stops what the canvas runs (the event stream, the expiry timer) before the sign-in form replaces it. */
export function closeApp(): void {
  closeJob?.();
  closeJob = undefined;
  window.clearTimeout(expiryTimer);
  window.clearInterval(queueTimer);
  window.onhashchange = null;
}
