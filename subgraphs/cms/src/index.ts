export { startCms, cmsSdl, type CmsOptions, type CmsRuntime } from './cms-subgraph.js';
export { DEMO_SITE_KEY, DEMO_FORM_KEY } from './seed.js';
export { cmsConfig } from './config.js';
