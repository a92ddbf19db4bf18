import type { RouteSpec } from '../route-spec.js';
import { adminUserRoutes } from './admin-users.js';
import { authRoutes } from './auth.js';
import { cmsRoutes } from './cms.js';
import { crawlRoutes } from './crawl.js';
import { insightRoutes } from './insight.js';
import { llmRoutes } from './llm.js';

/** Every REST path the bridge serves. */
export const ROUTES: readonly RouteSpec[] = [...authRoutes, ...adminUserRoutes, ...insightRoutes, ...cmsRoutes, ...llmRoutes, ...crawlRoutes];
