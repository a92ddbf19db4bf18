import { rest } from '../api.js';
import { h } from '../dom.js';
import { handle } from '../state.js';

/** The question box: starts an analysis job and opens it (`started` reloads the job list). */
export function askForm(started: () => Promise<void>): HTMLFormElement {
  const topic = h('textarea', { id: 'topic', 'aria-label': 'Analysis topic', placeholder: 'e.g. Why did revenue drop last week? What if we increase search ad spend by 20%?', maxlength: 8000 });
  const start = h('button', { class: 'primary', type: 'submit' }, 'Start analysis');
  const form = h('form', { class: 'ask', 'aria-label': 'Start an analysis' }, topic, h('div', { class: 'row' }, start));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!topic.value.trim()) return topic.focus();
    start.disabled = true;
    try {
      const created = await rest<{ jobId: string }>('/api/v1/insight/jobs', { body: { prompt: topic.value } });
      location.hash = `job=${created.jobId}`;
      await started();
    } catch (error) {
      handle(error);
    } finally {
      start.disabled = false;
    }
  });
  return form;
}
