export { startCrawl, startCrawlWorker, crawlSdl, type CrawlOptions, type CrawlWorkerOptions } from './crawl-subgraph.js';
export { runCrawlMcpStdio } from './mcp/stdio.js';
export { crawlConfig, type CrawlStart } from './config.js';
