// The platform's crawler parts the crawl benchmark drives, as compiled files (a helper of
// crawl-throughput.js, which checks they exist before it starts, and crawl-contender.js, which
// loads them). A module moved in the sources is found missing here, by name.
export const SVC_MODULES = {
  createPageFetcher: 'subgraphs/crawl/dist/src/fetch/fetch-page.js',
  createSsrfGuard: 'subgraphs/kit/dist/src/outbound/ssrf-guard.js',
  createHostLimiter: 'subgraphs/crawl/dist/src/domain/host-politeness.js',
  extractItems: 'subgraphs/crawl/dist/src/domain/extract-items.js',
  parseHtml: 'subgraphs/crawl/dist/src/extract/parse-html.js',
  detectBlock: 'subgraphs/crawl/dist/src/fetch/block-page.js',
  mainText: 'subgraphs/crawl/dist/src/extract/main-text.js',
  contentFingerprint: 'subgraphs/crawl/dist/src/extract/content-change.js',
};

/** Each part, imported from its compiled file. */
export async function loadSvcParts() {
  const parts = {};
  for (const [name, path] of Object.entries(SVC_MODULES)) parts[name] = (await import(new URL(`../${path}`, import.meta.url).href))[name];
  return parts;
}
