/** Outcome of purging one cache layer: the delivery cache, or one edge cache. */
export interface LayerResult {
  /** redis, memory or edge */
  layer: string;
  /** Which cache: the Redis key or the edge purge URL. */
  target: string;
  ok: boolean;
  detail: string;
  durationMs: number;
}

/** What a purge of one content reached, layer by layer. */
export interface PurgeReport {
  siteKey: string;
  contentSlug: string;
  surrogateKey: string;
  /** ISO 8601 UTC */
  purgedAt: string;
  layers: LayerResult[];
}
