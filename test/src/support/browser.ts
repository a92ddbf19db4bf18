import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium, installed by scripts/provision.sh (Playwright's own browser downloads need internet). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Headless Chromium with no background traffic (no component updates, sync or QUIC probes), so
 * every request a page makes is one the page asked for. Playwright gives each launch a fresh,
 * throw-away user data dir.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: run \`bash scripts/provision.sh\` to install it`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Records what went wrong on a page: failed requests (a CDN fetch fails offline), console
 * errors (CSP violations, 404s) and uncaught exceptions. Attach before navigating.
 */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  const seen = new Map<string, { at: number; count: number }>();
  // The same problem repeated (one CSP report per blocked font) is listed once, with a count.
  const add = (problem: string) => {
    const entry = seen.get(problem);
    if (!entry) {
      seen.set(problem, { at: problems.length, count: 1 });
      problems.push(problem);
    } else {
      entry.count += 1;
      problems[entry.at] = `${problem} (×${entry.count})`;
    }
  };
  page.on('requestfailed', (request) => add(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText ?? 'unknown'})`));
  page.on('response', (response) => {
    if (response.status() >= 400) add(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location()?.url;
    // CSP reports quote whole data: URLs (inlined fonts run to kilobytes): keep only the media type.
    const text = message.text().replace(/'(data:[^;,']*)[^']*'/g, "'$1,…'");
    add(`console error: ${text.length > 400 ? `${text.slice(0, 400)}…` : text}${where ? ` (at ${where})` : ''}`);
  });
  page.on('pageerror', (error) => add(`page error: ${error.message}`));
  return problems;
}

/** axe-core's source, injected as the test's own evaluation (not a script element), so the page's CSP stays as it is. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The page's serious and critical accessibility violations by axe-core (WCAG 2 A/AA rules), as
 * `rule: selector, ...` lines; empty when there are none.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  type Result = { id: string; impact: string | null; nodes: { target: unknown[] }[] };
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Result[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 5).join(', ')}`);
}
