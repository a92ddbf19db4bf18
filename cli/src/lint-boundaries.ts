import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './paths.js';

/**
 * Package boundaries: a subgraph imports only @svc/kit (never another subgraph), kit imports
 * no service, the REST bridge imports kit and each service's REST contract (zod schemas, for
 * its OpenAPI document) and nothing else of a service, and no source reaches into another
 * package by a relative path. An entry ending in a subpath allows exactly that module.
 */
const PACKAGES: Record<string, { dir: string; mayImport: string[] }> = {
  '@svc/kit': { dir: 'subgraphs/kit', mayImport: [] },
  '@svc/insight': { dir: 'subgraphs/insight', mayImport: ['@svc/kit'] },
  '@svc/cms': { dir: 'subgraphs/cms', mayImport: ['@svc/kit'] },
  '@svc/llm': { dir: 'subgraphs/llm', mayImport: ['@svc/kit'] },
  '@svc/crawl': { dir: 'subgraphs/crawl', mayImport: ['@svc/kit'] },
  '@svc/router': { dir: 'router', mayImport: ['@svc/kit'] },
  '@svc/rest-bridge': { dir: 'rest-bridge', mayImport: ['@svc/kit', '@svc/insight/contract', '@svc/llm/contract', '@svc/crawl/contract', '@svc/cms/contract'] },
};

async function* sources(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

export async function checkBoundaries(): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, { dir, mayImport }] of Object.entries(PACKAGES)) {
    for await (const file of sources(join(REPO_ROOT, dir, 'src'))) {
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        const target = match[1]!;
        const where = relative(REPO_ROOT, file);
        const svc = /^@svc\/[\w-]+/.exec(target)?.[0];
        if (svc && svc !== name && !mayImport.includes(svc) && !mayImport.includes(target)) problems.push(`${where}: ${name} must not import ${target}`);
        if (target.startsWith('.') && relative(join(REPO_ROOT, dir), join(file, '..', target)).startsWith('..')) {
          problems.push(`${where}: relative import ${target} leaves ${dir}`);
        }
      }
    }
  }
  return problems;
}

const problems = await checkBoundaries();
if (problems.length) {
  process.stderr.write(`lint: package boundaries crossed:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stderr.write('lint: package boundaries respected\n');
