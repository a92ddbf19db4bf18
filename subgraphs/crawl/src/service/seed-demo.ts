import { seededRandom, type Logger } from '@svc/kit';
import { demoCrawl } from '../domain/demo-crawl.js';
import type { JobStore } from '../store/job-store.js';

const DEMO_SEED = 11;

/** The embedded demo's crawl job and its history (domain/demo-crawl.ts), once per tenant. */
export async function seedDemo(jobs: JobStore, log: Logger, now = new Date()): Promise<void> {
  const demo = demoCrawl(now, seededRandom(DEMO_SEED));
  const jobId = await jobs.seedJob(demo);
  if (jobId) log.info({ tenant: demo.tenantId, jobId, jobName: demo.jobName, runs: demo.runs.length }, 'seeded the demo crawl job and its past runs (paused)');
}
