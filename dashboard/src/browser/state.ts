import { ApiError, type Session } from './api.js';

/**
 * What the views share: the signed-in session, the page banner, and one way to handle an error
 * (a 401 anywhere ends the session with a clear message, never a blank page). main.ts sets
 * `signedOut` and `refresh`.
 */
export const state: {
  session: Session | undefined;
  /** Shows the sign-in form with a message. */
  signedOut: (message: string) => void;
  /** Reloads what depends on the tenant (jobs, queue, budget, the open job). */
  refresh: () => void;
} = { session: undefined, signedOut: () => undefined, refresh: () => undefined };

const banner = () => document.getElementById('banner')!;

export function showBanner(text: string | null, kind: 'warning' | 'error' = 'warning'): void {
  const element = banner();
  element.hidden = !text;
  element.className = kind === 'error' ? 'error' : '';
  element.textContent = text ?? '';
}

export const DEFAULT_CREDENTIALS_WARNING = 'The default admin account (admin/admin) is in use: set SVC_ADMIN_USERNAME and SVC_ADMIN_PASSWORD before exposing the platform.';

export function handle(error: unknown): void {
  if (error instanceof ApiError && error.status === 401) {
    state.signedOut('Your session expired or was signed out; sign in again.');
    return;
  }
  showBanner(error instanceof Error ? error.message : String(error), 'error');
}

export const currentJobId = () => /job=([0-9a-f-]{36})/.exec(location.hash)?.[1];
