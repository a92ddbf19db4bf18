import { rest } from '../api.js';
import { h } from '../dom.js';
import { handle, state } from '../state.js';

/**
 * The seeded demo's questions (kit's demo-story.ts), each ending in a different kind of proposal:
 * restoring a page and handing off a spend rise, updating a draft, raising a model budget,
 * changing a crawl job's selectors back, running a crawl job whose runs failed again.
 */
export const DEMO_QUESTIONS = [
  'Why did revenue drop last week? What if we increase search ad spend by 20%?',
  'Why did newsletter signups drop last week?',
  'Is the budget enough for our model spend this month?',
  'Why did the competitor price crawl collect fewer items last week?',
  'Why did the supplier stock crawl collect no items last week?',
] as const;

/** The question box: starts an analysis job and opens it (`started` reloads the job list). */
export function askForm(started: () => Promise<void>): HTMLFormElement {
  const topic = h('textarea', { id: 'topic', 'aria-label': 'Analysis topic', placeholder: `e.g. ${DEMO_QUESTIONS[0]}`, maxlength: 8000 });
  const start = h('button', { class: 'primary', type: 'submit' }, 'Start analysis');
  // In the demo tenant, its questions one click away (they fill the box; starting stays a choice).
  const tries = state.session?.tenant === 'demo'
    ? h('div', { class: 'tries', role: 'group', 'aria-label': 'Questions the demo data answers' }, h('span', {}, 'Try:'), ...DEMO_QUESTIONS.map((q) => {
      const pick = h('button', { type: 'button', class: 'try' }, q);
      pick.addEventListener('click', () => {
        topic.value = q;
        topic.focus();
      });
      return pick;
    }))
    : null;
  const form = h('form', { class: 'ask', 'aria-label': 'Start an analysis' }, topic, h('div', { class: 'row' }, start), tries);
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
