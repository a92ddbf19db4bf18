export { startInsight, startAnalysisWorker, insightSdl, type InsightOptions, type AnalysisWorkerOptions } from './insight-subgraph.js';
export { insightConfig, type InsightStart } from './config.js';
