export { startCrawl, crawlSdl, type CrawlOptions } from './crawl-subgraph.js';
