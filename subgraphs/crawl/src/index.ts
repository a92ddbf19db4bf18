export { startCrawl, startCrawlWorker, crawlSdl, type CrawlOptions, type CrawlWorkerOptions } from './crawl-subgraph.js';
