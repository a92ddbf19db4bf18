import { rest } from '../api.js';
import { fill, h } from '../dom.js';
import { when } from '../format.js';
import { currentJobId, handle } from '../state.js';

interface JobSummary {
  jobId: string;
  prompt: string;
  status: string;
  createdAt: string;
}

/** Past jobs of the tenant, newest first, with a search box; a click opens one. */
export function jobList(): { element: HTMLElement; load: () => Promise<void>; render: () => void } {
  const list = h('ul', { 'aria-label': 'Past jobs' });
  const filter = h('input', { type: 'search', 'aria-label': 'Search past jobs', placeholder: 'Search jobs' });
  let jobs: JobSummary[] = [];
  let search = '';
  const render = () => {
    const current = currentJobId();
    const shown = jobs.filter((j) => !search || j.prompt.toLowerCase().includes(search) || j.status.toLowerCase().includes(search));
    fill(
      list,
      ...shown.map((j) => {
        const open = h('button', { type: 'button', 'aria-current': j.jobId === current ? 'true' : undefined }, h('span', { class: `badge ${j.status}` }, j.status), ' ', j.prompt.slice(0, 90), h('span', { class: 'when' }, when(j.createdAt)));
        open.addEventListener('click', () => (location.hash = `job=${j.jobId}`));
        return h('li', {}, open);
      }),
    );
    if (!shown.length) fill(list, h('li', { class: 'muted' }, jobs.length ? 'No job matches.' : 'No jobs yet.'));
  };
  filter.addEventListener('input', () => {
    search = filter.value.toLowerCase();
    render();
  });
  const load = async () => {
    try {
      jobs = (await rest<{ jobs: JobSummary[] }>('/api/v1/insight/jobs?first=100')).jobs;
      render();
    } catch (error) {
      handle(error);
    }
  };
  return { element: h('section', { class: 'panel jobs', 'aria-label': 'Past jobs' }, h('h2', {}, 'Past jobs'), filter, list), load, render };
}
