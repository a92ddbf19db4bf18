import { defineConfigSlice, serviceOptions, type ServiceStart } from '@svc/kit';
import { z } from 'zod';
import type { InsightOptions } from './insight-subgraph.js';

/** The analysis service's variables: the local account and the tokens it issues. */
export const insightConfig = defineConfigSlice({
  variables: z.object({
    /** Lifetime of issued access tokens in seconds. Default 3600. */
    SVC_JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400 * 7).default(3600),
    /** The local admin account (every role, tenant and site). Default admin. */
    SVC_ADMIN_USERNAME: z.string().min(1).default('admin'),
    /** Its password, re-hashed when it changes. Default admin (the start warns). */
    SVC_ADMIN_PASSWORD: z.string().min(1).default('admin'),
  }),
  fromConfig: (config, start: ServiceStart & { jwtSecret: string | undefined }): InsightOptions => ({
    ...serviceOptions(config, start),
    jwtSecret: start.jwtSecret,
    tokenTtlSeconds: config.SVC_JWT_TTL_SECONDS,
    adminUsername: config.SVC_ADMIN_USERNAME,
    adminPassword: config.SVC_ADMIN_PASSWORD,
  }),
});
