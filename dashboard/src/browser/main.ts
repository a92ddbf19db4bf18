import type { Session } from './api.js';
import { state } from './state.js';
import { closeApp, showApp } from './views/app-shell.js';
import { showSignIn } from './views/sign-in.js';

/**
 * The dashboard's entry: the verified session opens the analysis canvas, anything else the
 * sign-in form. Each view lives in views/ (sign-in, tenant, ask, job list, job with its report,
 * actions and steps, budget).
 */
const app = document.getElementById('app')!;

const signIn = (message?: string) => {
  closeApp();
  state.session = undefined;
  void showSignIn(app, message, (session) => showApp(app, session));
};
state.signedOut = signIn;

async function boot(): Promise<void> {
  const response = await fetch('/session', { credentials: 'same-origin' }).catch(() => undefined);
  if (response?.ok) return showApp(app, (await response.json()) as Session);
  const info = response ? await response.json().catch(() => ({})) : {};
  signIn(info.expired ? 'Your session expired; sign in again.' : undefined);
}

void boot();
