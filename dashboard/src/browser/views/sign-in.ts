import { ApiError, rest, type Session } from '../api.js';
import { fill, h } from '../dom.js';
import { DEFAULT_CREDENTIALS_WARNING, showBanner } from '../state.js';

/** The sign-in form; `signedIn` receives the verified session. */
export async function showSignIn(app: HTMLElement, message: string | undefined, signedIn: (session: Session) => Promise<void>): Promise<void> {
  const info = await fetch('/session', { credentials: 'same-origin' }).then((r) => r.json()).catch(() => ({}));
  showBanner(info.defaultCredentials ? DEFAULT_CREDENTIALS_WARNING : null);
  const user = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const note = h('p', { class: 'message', role: 'status' }, message ?? '');
  const submit = h('button', { class: 'primary', type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { class: 'login', 'aria-label': 'Sign in' },
    h('h1', {}, 'Svc Platform'),
    h('p', { class: 'muted' }, 'Analysis dashboard'),
    h('label', { for: 'username' }, 'Username'), user,
    h('label', { for: 'password' }, 'Password'), password,
    h('div', { class: 'row' }, submit),
    note,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      await signedIn(await rest<Session>('/session', { body: { username: user.value, password: password.value } }));
    } catch (error) {
      note.className = 'message error';
      note.textContent = error instanceof ApiError && error.status === 401 ? 'Wrong username or password.' : (error as Error).message;
      submit.disabled = false;
    }
  });
  fill(app, h('main', { class: 'signin' }, form));
  user.focus();
}
