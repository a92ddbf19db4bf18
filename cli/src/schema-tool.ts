import { composeServices } from '@apollo/composition';
import { cmsSdl } from '@svc/cms';
import { crawlSdl } from '@svc/crawl';
import { insightSdl } from '@svc/insight';
import { loadOperations } from '@svc/kit';
import { llmSdl } from '@svc/llm';
import { parse, validate } from 'graphql';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OPERATIONS_DIR, SCHEMA_DIR } from './paths.js';

/** Subgraphs in the supergraph, with the URLs the composed file records (the router overrides them). */
const SUBGRAPHS = [
  { name: 'insight', url: 'http://127.0.0.1:4001/graphql', sdl: insightSdl },
  { name: 'llm', url: 'http://127.0.0.1:4002/graphql', sdl: llmSdl },
  { name: 'crawl', url: 'http://127.0.0.1:4003/graphql', sdl: crawlSdl },
  { name: 'cms', url: 'http://127.0.0.1:4004/graphql', sdl: cmsSdl },
];

export async function buildSnapshots(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const services = [];
  for (const subgraph of SUBGRAPHS) {
    const sdl = await subgraph.sdl();
    files.set(`${subgraph.name}.graphql`, sdl);
    services.push({ name: subgraph.name, url: subgraph.url, typeDefs: parse(sdl) });
  }
  const result = composeServices(services);
  if (result.errors) throw new Error(`Composition failed:\n${result.errors.map((e) => `  ${e.message}`).join('\n')}`);
  files.set('supergraph.graphql', `${result.supergraphSdl.trim()}\n`);
  const api = result.schema.toAPISchema().toGraphQLJSSchema();
  for (const [name, text] of await loadOperations(OPERATIONS_DIR)) {
    const errors = validate(api, parse(text));
    if (errors.length) throw new Error(`Operation ${name} does not validate against the supergraph:\n${errors.map((e) => `  ${e.message}`).join('\n')}`);
  }
  return files;
}

async function main(mode: string | undefined): Promise<void> {
  const files = await buildSnapshots();
  if (mode === 'write') {
    for (const [name, text] of files) await writeFile(join(SCHEMA_DIR, name), text);
    process.stderr.write(`schema: wrote ${[...files.keys()].join(', ')}\n`);
    return;
  }
  const stale: string[] = [];
  for (const [name, text] of files) {
    const current = await readFile(join(SCHEMA_DIR, name), 'utf8').catch(() => '');
    if (current !== text) stale.push(name);
  }
  if (stale.length) {
    process.stderr.write(`schema: stale snapshot(s) in schema/: ${stale.join(', ')}. Run "npm run schema:write" and commit the result.\n`);
    process.exit(1);
  }
  process.stderr.write('schema: snapshots, supergraph and route operations are current\n');
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`schema: ${(error as Error).message}\n`);
  process.exit(1);
});
