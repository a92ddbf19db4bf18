export { startCrawl, startCrawlWorker, crawlSdl, type CrawlOptions, type CrawlWorkerOptions } from './crawl-subgraph.js';
export { crawlConfig, type CrawlStart } from './config.js';
