import { ApiError, graphql, rest, type Session } from './api.js';
import { drawChart, type Chart } from './charts.js';
import { fill, h, safeLink, time } from './dom.js';
import { stepItem, type Step } from './steps.js';

/**
 * The analysis canvas: ask, watch the agent's steps stream in, read the report and its charts,
 * decide the proposed actions. Everything comes from the bridge (REST and the job's event
 * stream) and the router (GraphQL) through the dashboard's origin; the page holds no rules.
 */

interface Action {
  actionId: string;
  jobId: string;
  kind: string;
  title: string;
  rationale: string;
  targetType: string;
  targetId: string;
  params: Record<string, unknown>;
  expectedImpact: { metric: string; horizon: number; p10: number; p50: number; p90: number } | null;
  status: string;
  expiresAt: string;
  decision: { reviewedBy: string | null; comment: string | null; decidedAt: string } | null;
  outcome: Record<string, unknown> | null;
}

interface Job {
  jobId: string;
  status: string;
  prompt: string;
  createdAt: string;
  finishedAt: string | null;
  progress: { stepsDone: number; currentStep: string | null };
  steps: Step[];
  report: {
    judgment: string;
    findings: { title: string; detail: string; evidence: number[] }[];
    evidence: { kind: string; step: number; summary: string | null; url: string | null; title: string | null; excerpt: string | null }[];
    confidence: number;
    confidenceReason: string;
    charts: Chart[];
  } | null;
  actions: Action[];
  error: string | null;
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const app = document.getElementById('app')!;
const banner = document.getElementById('banner')!;

let session: Session | undefined;
let events: EventSource | undefined;
let expiryTimer: number | undefined;
const steps = new Map<number, Step>();

const ui = {
  status: h('div', { class: 'status', role: 'status' }),
  steps: h('ol', { class: 'steps', 'aria-label': 'Reasoning steps' }),
  report: h('div', { class: 'report' }),
  actions: h('div', { class: 'actions' }),
  queue: h('div', { class: 'queue' }),
  jobs: h('ul', { 'aria-label': 'Past jobs' }),
  budget: h('div', { class: 'budget-body' }),
};
let jobs: { jobId: string; prompt: string; status: string; createdAt: string }[] = [];
let search = '';

function showBanner(text: string | null, kind: 'warning' | 'error' = 'warning'): void {
  banner.hidden = !text;
  banner.className = kind === 'error' ? 'error' : '';
  banner.textContent = text ?? '';
}

/** A 401 anywhere ends the session with a clear message (never a blank page). */
function handle(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    void showLogin('Your session expired or was signed out; sign in again.');
    return;
  }
  showBanner(error instanceof Error ? error.message : String(error), 'error');
}

// ---------------------------------------------------------------- sign-in

async function showLogin(message?: string): Promise<void> {
  events?.close();
  session = undefined;
  window.clearTimeout(expiryTimer);
  const info = await fetch('/session', { credentials: 'same-origin' }).then((r) => r.json()).catch(() => ({}));
  showBanner(info.defaultCredentials ? 'The default admin account (admin/admin) is in use: set SVC_ADMIN_USERNAME and SVC_ADMIN_PASSWORD before exposing the platform.' : null);
  const user = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const note = h('p', { class: message ? 'message' : 'message', role: 'status' }, message ?? '');
  const submit = h('button', { class: 'primary', type: 'submit' }, 'Sign in');
  const form = h('form', { class: 'login', 'aria-label': 'Sign in' }, h('h1', {}, 'Svc Platform'), h('p', { class: 'muted' }, 'Analysis dashboard'), h('label', { for: 'username' }, 'Username'), user, h('label', { for: 'password' }, 'Password'), password, h('div', { class: 'row' }, submit), note);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      session = await rest<Session>('/session', { body: { username: user.value, password: password.value } });
      await showApp();
    } catch (error) {
      note.className = 'message error';
      note.textContent = error instanceof ApiError && error.status === 401 ? 'Wrong username or password.' : (error as Error).message;
      submit.disabled = false;
    }
  });
  fill(app, form);
  user.focus();
}

// ---------------------------------------------------------------- the canvas

async function showApp(): Promise<void> {
  if (!session) return;
  showBanner(session.defaultCredentials ? 'The default admin account (admin/admin) is in use: set SVC_ADMIN_USERNAME and SVC_ADMIN_PASSWORD before exposing the platform.' : null);
  window.clearTimeout(expiryTimer);
  expiryTimer = window.setTimeout(() => void showLogin('Your session expired; sign in again.'), Math.max(0, session.expiresAt - Date.now()));
  const logout = h('button', { type: 'button' }, 'Sign out');
  logout.addEventListener('click', async () => {
    await rest('/session', { method: 'DELETE' }).catch(() => undefined);
    await showLogin('You signed out.');
  });
  const topic = h('textarea', { id: 'topic', 'aria-label': 'Analysis topic', placeholder: 'e.g. Why did revenue drop last week? What if we increase search ad spend by 20%?', maxlength: 8000 });
  const start = h('button', { class: 'primary', type: 'submit' }, 'Start analysis');
  const ask = h('form', { class: 'ask', 'aria-label': 'Start an analysis' }, topic, h('div', { class: 'row' }, start));
  ask.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!topic.value.trim()) return topic.focus();
    start.disabled = true;
    try {
      const created = await rest<{ jobId: string }>('/api/v1/insight/jobs', { body: { prompt: topic.value } });
      location.hash = `job=${created.jobId}`;
      await loadJobs();
    } catch (error) {
      handle(error);
    } finally {
      start.disabled = false;
    }
  });
  const filter = h('input', { type: 'search', 'aria-label': 'Search past jobs', placeholder: 'Search jobs' });
  filter.addEventListener('input', () => {
    search = filter.value.toLowerCase();
    renderJobs();
  });
  fill(
    app,
    h('header', { class: 'top' }, h('h1', {}, 'Svc Platform · Analysis'), h('span', { class: 'who' }, `${session.subject} (${session.roles.join(', ') || 'no roles'})`), logout),
    h(
      'div',
      { class: 'layout' },
      h('div', {}, h('section', { class: 'panel', 'aria-label': 'Ask' }, h('h2', {}, 'Ask'), ask), h('section', { class: 'panel jobs', 'aria-label': 'Past jobs' }, h('h2', {}, 'Past jobs'), filter, ui.jobs)),
      h(
        'div',
        {},
        h('section', { class: 'panel canvas', 'aria-label': 'Reasoning' }, h('h2', {}, 'Reasoning'), ui.status, ui.steps),
        h('section', { class: 'panel', 'aria-label': 'Report' }, h('h2', {}, 'Report'), ui.report),
        h('section', { class: 'panel', 'aria-label': 'Proposed actions' }, h('h2', {}, 'Proposed actions'), ui.actions),
      ),
      h('div', {}, h('section', { class: 'panel', 'aria-label': 'Review queue' }, h('h2', {}, 'Waiting for a decision'), ui.queue), h('section', { class: 'panel', 'aria-label': 'Analysis budget' }, h('h2', {}, 'What thinking costs'), ui.budget)),
    ),
  );
  window.onhashchange = () => void openFromHash();
  await Promise.all([loadJobs(), loadQueue(), loadBudget(), openFromHash()]);
}

function renderJobs(): void {
  const current = currentJobId();
  fill(
    ui.jobs,
    ...jobs
      .filter((j) => !search || j.prompt.toLowerCase().includes(search) || j.status.toLowerCase().includes(search))
      .map((j) => {
        const open = h('button', { type: 'button', 'aria-current': j.jobId === current ? 'true' : undefined }, h('span', { class: `badge ${j.status}` }, j.status), ' ', j.prompt.slice(0, 90), h('span', { class: 'when' }, time(j.createdAt)));
        open.addEventListener('click', () => (location.hash = `job=${j.jobId}`));
        return h('li', {}, open);
      }),
  );
  if (!jobs.length) fill(ui.jobs, h('li', { class: 'muted' }, 'No jobs yet.'));
}

async function loadJobs(): Promise<void> {
  try {
    jobs = (await rest<{ jobs: typeof jobs }>('/api/v1/insight/jobs?first=100')).jobs;
    renderJobs();
  } catch (error) {
    handle(error);
  }
}

const currentJobId = () => /job=([0-9a-f-]{36})/.exec(location.hash)?.[1];

async function openFromHash(): Promise<void> {
  const id = currentJobId();
  events?.close();
  steps.clear();
  fill(ui.steps);
  fill(ui.report, h('p', { class: 'muted' }, id ? 'The report appears when the job completes.' : 'Start an analysis to see its report.'));
  fill(ui.actions, h('p', { class: 'muted' }, 'None yet.'));
  fill(ui.status, id ? 'Connecting…' : 'No job selected.');
  renderJobs();
  if (id) follow(id);
}

/**
 * The job's event stream: every written step once, in order. The browser reconnects by itself
 * with Last-Event-ID after a lost connection; a step already shown (by its number) is skipped,
 * so a reconnect or a reload never shows one twice.
 */
function follow(jobId: string): void {
  const source = new EventSource(`/api/v1/insight/jobs/${jobId}/events`);
  events = source;
  source.addEventListener('step', (event) => {
    const step = JSON.parse((event as MessageEvent<string>).data) as Step;
    if (steps.has(step.seq)) return;
    steps.set(step.seq, step);
    ui.steps.appendChild(stepItem(step));
    setStatus(step.kind === 'STATUS' && step.status ? step.status : 'RUNNING', step);
    if (step.kind === 'STATUS' && step.status && FINAL.has(step.status)) {
      source.close();
      void finished(jobId);
    }
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      // The stream was refused (signed out, not found): find out why from the job itself.
      rest(`/api/v1/insight/jobs/${jobId}`).then(() => void finished(jobId), handle);
    } else fill(ui.status, h('span', { class: 'badge' }, 'RECONNECTING'), ' Connection lost; resuming where it stopped…');
  });
}

function setStatus(status: string, last: Step): void {
  const running = !FINAL.has(status);
  fill(
    ui.status,
    h('span', { class: `badge ${status}` }, status),
    `${steps.size} steps`,
    running ? h('progress', { 'aria-label': 'Job progress' }) : null,
    h('span', {}, running ? `Now: ${last.title}` : ''),
  );
}

async function finished(jobId: string): Promise<void> {
  try {
    const job = await rest<Job>(`/api/v1/insight/jobs/${jobId}`);
    for (const step of job.steps) {
      if (!steps.has(step.seq)) {
        steps.set(step.seq, step);
        ui.steps.appendChild(stepItem(step));
      }
    }
    fill(ui.status, h('span', { class: `badge ${job.status}` }, job.status), `${steps.size} steps`, job.error ? h('span', { class: 'message error' }, job.error) : null);
    renderReport(job);
    fill(ui.actions, ...(job.actions.length ? job.actions.map(actionCard) : [h('p', { class: 'muted' }, 'The report proposes no actions.')]));
    await Promise.all([loadJobs(), loadQueue(), loadBudget()]);
  } catch (error) {
    handle(error);
  }
}

function renderReport(job: Job): void {
  const report = job.report;
  if (!report) return fill(ui.report, h('p', { class: 'muted' }, job.error ?? 'No report.'));
  const evidence = h(
    'ol',
    { class: 'evidence' },
    ...report.evidence.map((e) => h('li', {}, h('span', { class: 'badge' }, e.kind), ' ', e.url && /^https?:/.test(e.url) ? safeLink(e.url, e.title ?? e.url) : (e.title ?? e.url ?? ''), ' ', e.summary ?? e.excerpt ?? '', h('span', { class: 'muted' }, ` (step ${e.step})`))),
  );
  const charts = h('div', { class: 'charts' });
  fill(
    ui.report,
    h('p', { class: 'judgment' }, report.judgment),
    h('p', { class: 'confidence' }, `Confidence ${Math.round(report.confidence * 100)}%: ${report.confidenceReason}`),
    charts,
    h('h3', {}, 'Findings'),
    h('ul', {}, ...report.findings.map((f) => h('li', {}, h('strong', {}, f.title), ' ', f.detail, f.evidence.length ? h('span', { class: 'muted' }, ` [evidence ${f.evidence.map((i) => i + 1).join(', ')}]`) : null))),
    h('h3', {}, 'Evidence'),
    evidence,
  );
  const width = Math.max(280, Math.min(520, charts.clientWidth / Math.max(1, Math.min(2, report.charts.length)) - 20));
  for (const chart of report.charts) charts.appendChild(drawChart(chart, width));
}

// ---------------------------------------------------------------- decisions

function actionCard(action: Action): HTMLElement {
  const card = h('article', { class: 'card', 'data-action': action.actionId, 'aria-label': action.title });
  renderCard(card, action);
  return card;
}

function renderCard(card: HTMLElement, action: Action, note?: { text: string; kind: 'conflict' | 'error' | 'info' }): void {
  const impact = action.expectedImpact;
  const body = [
    h('h3', {}, h('span', { class: `badge ${action.status}` }, action.status), action.title),
    h('div', { class: 'meta' }, `${action.kind} · target ${action.targetType} ${action.targetId} · expires ${time(action.expiresAt)}`),
    h('p', {}, action.rationale),
    h('code', { class: 'args', 'aria-label': 'parameters' }, JSON.stringify(action.params, null, 1)),
    impact ? h('p', { class: 'meta' }, `Expected impact on ${impact.metric} over ${impact.horizon}: p10 ${impact.p10}, p50 ${impact.p50}, p90 ${impact.p90}`) : null,
    action.decision ? h('p', { class: 'meta' }, `Decided by ${action.decision.reviewedBy ?? '?'} ${time(action.decision.decidedAt)}${action.decision.comment ? `: “${action.decision.comment}”` : ''}`) : null,
    action.outcome ? h('div', { class: `result ${action.status === 'EXECUTION_FAILED' ? 'error' : ''}` }, `Outcome: ${JSON.stringify(action.outcome)}`) : null,
  ];
  if (action.status === 'PROPOSED') {
    const comment = h('textarea', { 'aria-label': `Comment on ${action.title}`, placeholder: 'Comment (optional)' });
    const approve = h('button', { class: 'primary', type: 'button' }, 'Approve');
    const reject = h('button', { type: 'button' }, 'Reject');
    const decide = async (verdict: 'approve' | 'reject') => {
      approve.disabled = reject.disabled = true;
      try {
        const decided = await rest<Action>(`/api/v1/insight/actions/${action.actionId}/${verdict}`, { body: { reviewedBy: session?.subject, comment: comment.value || undefined } });
        renderCard(card, decided);
        if (decided.status === 'APPROVED') void awaitOutcome(card, decided.actionId);
        void loadQueue();
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) {
          const current = await rest<Action>(`/api/v1/insight/actions/${action.actionId}`).catch(() => action);
          renderCard(card, current, { text: `Someone else decided first (409): ${error.message}`, kind: 'conflict' });
          if (current.status === 'APPROVED') void awaitOutcome(card, current.actionId);
        } else if (error instanceof ApiError && error.status === 401) handle(error);
        else renderCard(card, action, { text: `Not decided: ${(error as Error).message}`, kind: 'error' });
      }
    };
    approve.addEventListener('click', () => void decide('approve'));
    reject.addEventListener('click', () => void decide('reject'));
    body.push(comment, h('div', { class: 'buttons' }, approve, reject));
  }
  if (note) body.push(h('div', { class: `result ${note.kind}`, role: 'status' }, note.text));
  fill(card, ...body);
}

/** An approved action is carried out by a worker; the card follows it to its outcome. */
async function awaitOutcome(card: HTMLElement, actionId: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const action = await rest<Action>(`/api/v1/insight/actions/${actionId}`).catch(() => undefined);
    if (action && action.status !== 'APPROVED') return renderCard(card, action);
  }
}

async function loadQueue(): Promise<void> {
  try {
    const actions = await rest<Action[] | { actions: Action[] }>('/api/v1/insight/actions?status=PROPOSED&first=50');
    const list = Array.isArray(actions) ? actions : actions.actions;
    fill(ui.queue, ...(list.length ? list.map(actionCard) : [h('p', { class: 'muted' }, 'Nothing waits for a decision.')]));
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) fill(ui.queue, h('p', { class: 'muted' }, 'Reviewers see pending proposals here.'));
    else handle(error);
  }
}

const AGENT = `query DashboardAgent($code: String!) {
  agent(code: $code) { code budget { allocatedUsd currentUsageUsd burnRatePercent remainingUsd status hardLimitEnabled } usage { day requests costUsd } }
}`;

async function loadBudget(): Promise<void> {
  try {
    const { agent } = await graphql<{ agent: { budget: { allocatedUsd: number; currentUsageUsd: number; burnRatePercent: number; remainingUsd: number; status: string; hardLimitEnabled: boolean }; usage: { day: string; requests: number; costUsd: number }[] } | null }>(AGENT, { code: 'insight' });
    if (!agent) return fill(ui.budget, h('p', { class: 'muted' }, 'The analysis agent has not used the gateway yet.'));
    const days = new Set(agent.usage.map((u) => u.day)).size || 1;
    const spent = agent.usage.reduce((sum, u) => sum + u.costUsd, 0);
    const requests = agent.usage.reduce((sum, u) => sum + u.requests, 0);
    const usd = (n: number) => `$${n.toFixed(4)}`;
    fill(
      ui.budget,
      h(
        'dl',
        { class: 'budget' },
        h('dt', {}, 'Allocated'), h('dd', {}, agent.budget.allocatedUsd ? usd(agent.budget.allocatedUsd) : 'no limit set'),
        h('dt', {}, 'Used this month'), h('dd', {}, usd(agent.budget.currentUsageUsd)),
        h('dt', {}, 'Burn rate'), h('dd', {}, `${agent.budget.burnRatePercent}% of the allocation`),
        h('dt', {}, 'Per active day'), h('dd', {}, `${usd(spent / days)} (${requests} model calls)`),
        h('dt', {}, 'Status'), h('dd', {}, h('span', { class: 'badge' }, agent.budget.status), agent.budget.hardLimitEnabled ? ' hard limit' : ''),
      ),
    );
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) handle(error);
    else fill(ui.budget, h('p', { class: 'muted' }, `Budget unavailable: ${(error as Error).message}`));
  }
}

// ---------------------------------------------------------------- start

async function boot(): Promise<void> {
  const response = await fetch('/session', { credentials: 'same-origin' }).catch(() => undefined);
  if (response?.ok) {
    session = (await response.json()) as Session;
    await showApp();
  } else {
    const info = response ? await response.json().catch(() => ({})) : {};
    await showLogin(info.expired ? 'Your session expired; sign in again.' : undefined);
  }
}

void boot();
