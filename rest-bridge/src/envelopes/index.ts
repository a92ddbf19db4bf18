import type { Style } from '../route-spec.js';
import { cmsEnvelope } from './cms.js';
import { crawlEnvelope } from './crawl.js';
import type { Envelope } from './envelope.js';
import { insightEnvelope } from './insight.js';
import { llmEnvelope } from './llm.js';

export * from './envelope.js';

export const ENVELOPES: Record<Style, Envelope> = {
  insight: insightEnvelope,
  llm: llmEnvelope,
  crawl: crawlEnvelope,
  cms: cmsEnvelope,
};

/** The style of a path no route matched, so even a 404 has the right shape. */
export function styleOfPath(path: string): Style {
  if (/^\/api\/v1\/(contents|forms|deploy)(\/|$)/.test(path)) return 'cms';
  if (path.startsWith('/api/v1/crawl')) return 'crawl';
  if (/^\/(admin\/)?v1(\/|$)/.test(path)) return 'llm';
  return 'insight';
}
