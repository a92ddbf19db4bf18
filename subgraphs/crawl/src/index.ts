// The crawl subgraph is being built domain-first: see src/domain/. It is not wired into the
// platform yet (svc crawl refuses to start), so nothing here is reachable from the API.
export {};
