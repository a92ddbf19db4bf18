import { seededRandom, type Logger } from '@svc/kit';
import { demoStory } from '@svc/kit/demo-story';
import { DEMO_DEFINITIONS, demoSeries } from '../domain/demo-series.js';
import type { DefinitionStore } from '../store/definition-store.js';
import type { MetricStore } from '../store/metric-store.js';

const DEMO_SEED = 42;
/** The demo shop's figures belong to tenant `demo`, as its content belongs to site `demo`. */
export const DEMO_TENANT = 'demo';

/**
 * The demo shop: its series when the demo tenant has none, and its definitions when it has none.
 * A demo seeded before definitions existed lacks series its definitions name (orders): its demo
 * series are then seeded again, once (the definitions written with them mark it done).
 */
export async function seedDemo(metricStore: MetricStore, definitionStore: DefinitionStore, log: Logger): Promise<void> {
  const now = new Date();
  // The story's falls, on the days the cms seed publishes the page versions behind them.
  const story = demoStory(now);
  const fresh = () => demoSeries(now, seededRandom(DEMO_SEED), { conversionFrom: story.pricingChange, signupsFrom: story.newsletterChange });
  if (await metricStore.isEmpty(DEMO_TENANT)) {
    log.info(await metricStore.ingest(DEMO_TENANT, fresh()), 'seeded the demo business metrics');
  } else if (await definitionStore.isEmpty(DEMO_TENANT)) {
    const present = new Set((await metricStore.names(DEMO_TENANT)).map((s) => s.name));
    const series = fresh();
    if (series.some((s) => !present.has(s.name))) {
      for (const name of new Set(series.map((s) => s.name))) await metricStore.remove(DEMO_TENANT, name, {});
      log.info(await metricStore.ingest(DEMO_TENANT, series), 'seeded the demo business metrics again (the seed gained series)');
    }
  }
  if (await definitionStore.isEmpty(DEMO_TENANT)) {
    for (const d of DEMO_DEFINITIONS) await definitionStore.put(DEMO_TENANT, 'seed', d.name, d.definition);
    log.info({ definitions: DEMO_DEFINITIONS.length }, 'seeded the demo business metric definitions');
  }
}
