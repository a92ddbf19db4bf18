export { startInsight, insightSdl, type InsightOptions } from './insight-subgraph.js';
export { insightConfig } from './config.js';
