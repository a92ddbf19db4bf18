export { startInsight, insightSdl, type InsightOptions } from './insight-subgraph.js';
