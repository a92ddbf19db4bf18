import { rest, type Session } from '../api.js';
import { h } from '../dom.js';
import { handle, state } from '../state.js';

/** The tenant offered first to a token that grants every tenant: the seeded demo shop's. */
const DEMO = 'demo';

/**
 * The tenant chooser in the page header. A token for one tenant shows it; a token for several
 * offers them (demo first); a token for every tenant ("*") offers demo and takes any other
 * typed in. The choice is kept by the dashboard server for the session and sent as
 * X-Svc-Tenant-Id on every call.
 */
export function tenantChooser(session: Session): HTMLElement {
  const every = session.tenants.includes('*');
  const offered = every ? [DEMO] : [...session.tenants].sort((a, b) => (a === DEMO ? -1 : b === DEMO ? 1 : a.localeCompare(b)));
  if (!every && offered.length <= 1) {
    return h('span', { class: 'tenant' }, 'Tenant ', h('strong', {}, session.tenant ?? 'none'));
  }
  const field = every
    ? h('input', { id: 'tenant', name: 'tenant', list: 'tenant-options', value: session.tenant ?? DEMO, size: 10, maxlength: 64, required: true, pattern: '[A-Za-z0-9][A-Za-z0-9._\\-]{0,63}', autocomplete: 'off' })
    : h('select', { id: 'tenant', name: 'tenant' }, ...offered.map((t) => h('option', { value: t, selected: t === session.tenant }, t)));
  const use = h('button', { type: 'submit' }, 'Use');
  const form = h(
    'form',
    { class: 'tenant', 'aria-label': 'Tenant' },
    h('label', { for: 'tenant' }, 'Tenant'),
    field,
    every ? h('datalist', { id: 'tenant-options' }, ...offered.map((t) => h('option', { value: t }))) : null,
    use,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const tenant = field.value.trim();
    if (!tenant || tenant === state.session?.tenant) return;
    use.disabled = true;
    try {
      state.session = await rest<Session>('/session/tenant', { method: 'PUT', body: { tenant } });
      location.hash = '';
      state.refresh();
    } catch (error) {
      handle(error);
    } finally {
      use.disabled = false;
    }
  });
  return form;
}
