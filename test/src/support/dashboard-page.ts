import type { Page } from 'playwright-core';
import { eventually } from './eventually.js';

/** Asks on the dashboard's canvas as a person would and waits for the report; returns the job's id. */
export async function askOnCanvas(page: Page, prompt: string): Promise<string> {
  await page.getByLabel('Analysis topic').fill(prompt);
  await page.getByRole('button', { name: 'Start analysis' }).click();
  await page.locator('.report .judgment').waitFor({ timeout: 90_000 });
  return /job=([0-9a-f-]{36})/.exec(page.url())![1]!;
}

/** Chooses the tenant in the dashboard's header and waits until the session has it. */
export async function useTenant(page: Page, tenant: string): Promise<void> {
  await page.getByRole('form', { name: 'Tenant' }).getByLabel('Tenant').fill(tenant);
  await page.getByRole('button', { name: 'Use' }).click();
  await eventually(async () => ((await page.evaluate(() => fetch('/session').then((r) => r.json()))) as { tenant: string }).tenant === tenant, 5_000, `tenant ${tenant}`);
}
