import { rest } from '../api.js';
import { fill, h } from '../dom.js';
import { num } from '../format.js';
import { handle } from '../state.js';
import { actionCard, refreshCards, type Action } from './actions.js';
import { renderReport, type Report } from './report.js';
import { stepItem, type Step } from './steps.js';

interface Job {
  jobId: string;
  status: string;
  prompt: string;
  error: string | null;
  steps: Step[];
  report: Report | null;
  actions: Action[];
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/**
 * One job on the canvas, in reading order: its status and the report's answer with the
 * waterfall, the proposed actions, then the segments, charts and findings, and last the
 * reasoning steps (one line each) as they stream in, in a panel that folds away.
 */
export function jobView(changed: () => void): { element: HTMLElement; open: (jobId: string | undefined) => void; refreshActions: () => Promise<void> } {
  const status = h('div', { class: 'status', role: 'status' });
  const report = h('div', { class: 'report' });
  const details = h('div', { class: 'report-details' });
  const actions = h('div', { class: 'actions' });
  const steps = h('ol', { class: 'steps', 'aria-label': 'Reasoning steps' });
  const shown = new Map<number, Step>();
  let events: EventSource | undefined;
  let openJob: string | undefined;
  let completed = false;

  const add = (step: Step) => {
    if (shown.has(step.seq)) return;
    shown.set(step.seq, step);
    steps.appendChild(stepItem(step));
  };
  const running = (state: string, last: Step) => {
    const busy = !FINAL.has(state);
    fill(status, h('span', { class: `badge ${state}` }, state), `${num(shown.size)} steps`, busy ? h('progress', { 'aria-label': 'Job progress' }) : null, h('span', { class: 'now' }, busy ? `Now: ${last.title}` : ''));
  };
  const finished = async (jobId: string) => {
    try {
      const job = await rest<Job>(`/api/v1/insight/jobs/${jobId}`);
      job.steps.forEach(add);
      fill(status, h('span', { class: `badge ${job.status}` }, job.status), `${num(shown.size)} steps`, job.error ? h('span', { class: 'message error' }, job.error) : null);
      renderReport(report, details, job.report, job.error);
      completed = jobId === openJob;
      fill(actions, ...(job.actions.length ? job.actions.map((a) => actionCard(a, changed)) : [h('p', { class: 'muted' }, 'The report proposes no actions.')]));
      changed();
    } catch (error) {
      handle(error);
    }
  };
  /**
   * The job's event stream: every written step once, in order. The browser reconnects by itself
   * with Last-Event-ID after a lost connection; a step already shown (by its number) is skipped,
   * so a reconnect or a reload never shows one twice.
   */
  const follow = (jobId: string) => {
    const source = new EventSource(`/api/v1/insight/jobs/${jobId}/events`);
    events = source;
    source.addEventListener('step', (event) => {
      const step = JSON.parse((event as MessageEvent<string>).data) as Step;
      add(step);
      running(step.kind === 'STATUS' && step.status ? step.status : 'RUNNING', step);
      if (step.kind === 'STATUS' && step.status && FINAL.has(step.status)) {
        source.close();
        void finished(jobId);
      }
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        // The stream was refused (signed out, not found): find out why from the job itself.
        rest(`/api/v1/insight/jobs/${jobId}`).then(() => void finished(jobId), handle);
      } else fill(status, h('span', { class: 'badge' }, 'RECONNECTING'), ' Connection lost; resuming where it stopped…');
    });
  };
  /** After a decision anywhere: the open report's cards as they are now (a proposal another decision settled shows it). */
  const refreshActions = async () => {
    const jobId = openJob;
    if (!jobId || !completed) return;
    const job = await rest<Job>(`/api/v1/insight/jobs/${jobId}`).catch(() => undefined);
    if (job && jobId === openJob) refreshCards(actions, job.actions, changed);
  };
  const open = (jobId: string | undefined) => {
    openJob = jobId;
    completed = false;
    events?.close();
    shown.clear();
    fill(steps);
    fill(report, h('p', { class: 'muted' }, jobId ? 'The report appears when the job completes.' : 'Start an analysis to see its report.'));
    fill(details, h('p', { class: 'muted' }, 'Charts and findings come with the report.'));
    fill(actions, h('p', { class: 'muted' }, 'None yet.'));
    fill(status, jobId ? 'Connecting…' : 'No job selected.');
    if (jobId) follow(jobId);
  };
  const element = h(
    'div',
    { class: 'canvas' },
    h('section', { class: 'panel', 'aria-label': 'Report' }, h('div', { class: 'panel-head' }, h('h2', {}, 'Report'), status), report),
    h('section', { class: 'panel', 'aria-label': 'Proposed actions' }, h('h2', {}, 'Proposed actions'), actions),
    h('section', { class: 'panel', 'aria-label': 'Charts and findings' }, h('h2', {}, 'Charts and findings'), details),
    h(
      'section',
      { class: 'panel', 'aria-label': 'Reasoning' },
      h('details', { class: 'step-log', open: true }, h('summary', {}, h('h2', {}, 'Reasoning steps')), h('p', { class: 'muted hint' }, 'One line per step; open one for its detail.'), steps),
    ),
  );
  return { element, open, refreshActions };
}
