import { seededRandom, type Logger } from '@svc/kit';
import { demoCrawls } from '../domain/demo-crawl.js';
import type { JobStore } from '../store/job-store.js';

const DEMO_SEED = 11;

/** The embedded demo's crawl jobs and their histories (domain/demo-crawl.ts), each once per tenant. */
export async function seedDemo(jobs: JobStore, log: Logger, now = new Date()): Promise<void> {
  for (const demo of demoCrawls(now, seededRandom(DEMO_SEED))) {
    const jobId = await jobs.seedJob(demo);
    if (jobId) log.info({ tenant: demo.tenantId, jobId, jobName: demo.jobName, runs: demo.runs.length, failedRuns: demo.runs.filter((r) => r.error).length }, 'seeded a demo crawl job and its past runs (paused)');
  }
}
