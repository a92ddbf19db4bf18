export { startInsight, insightSdl, type InsightOptions } from './insight-subgraph.js';
export { runInsightMcpStdio } from './mcp/stdio.js';
