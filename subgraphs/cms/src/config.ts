import { defineConfigSlice, envVar, isEmbedded, serviceOptions, type ServiceStart } from '@svc/kit';
import { z } from 'zod';
import type { CmsOptions } from './cms-subgraph.js';

/** The content service's variables: edge purging, the delivery cache, forms and the demo seed. */
export const cmsConfig = defineConfigSlice({
  variables: z.object({
    /** Edge caches to purge (Varnish xkey endpoints), comma separated. Default none. */
    SVC_EDGE_PURGE_URLS: envVar.list().pipe(z.array(envVar.httpUrl())),
    /** Delivery cache lifetime (Redis and s-maxage) in seconds. Default 300. */
    SVC_CMS_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
    /** Lifetime of a preview link when its author names none, seconds (60 to 604800). Default 3600. */
    SVC_CMS_PREVIEW_TTL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(3600),
    /** Form submissions per client and form per minute. Default 10 (a form definition may set its own). */
    SVC_FORM_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(10),
    /** First retry delay of form webhooks in ms; doubles per attempt, 6 attempts. Default 5000. */
    SVC_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(5000),
    /** How often the webhook outbox is swept for due deliveries whose job was never queued or was lost, ms. Default 30000. */
    SVC_WEBHOOK_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  }),
  fromConfig: (config, start: ServiceStart): CmsOptions => ({
    ...serviceOptions(config, start),
    redisUrl: config.REDIS_URL,
    redisPrefix: config.SVC_REDIS_PREFIX,
    edgePurgeUrls: config.SVC_EDGE_PURGE_URLS,
    cacheTtlSeconds: config.SVC_CMS_CACHE_TTL_SECONDS,
    previewTtlSeconds: config.SVC_CMS_PREVIEW_TTL_SECONDS,
    formRateLimitPerMinute: config.SVC_FORM_RATE_LIMIT_PER_MINUTE,
    webhookRetryBaseMs: config.SVC_WEBHOOK_RETRY_BASE_MS,
    webhookSweepMs: config.SVC_WEBHOOK_SWEEP_MS,
    outboundAllow: config.SVC_OUTBOUND_ALLOW_PRIVATE_HOSTS,
    seedDemo: config.SVC_SEED_DEMO ?? isEmbedded(config),
  }),
});
