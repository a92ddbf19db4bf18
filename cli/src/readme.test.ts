import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema, loadPlatformConfig } from './config.js';
import { SERVICES } from './services.js';

/**
 * The README's statements that the code can confirm: the variables of the configuration
 * reference and their defaults, the ports of the architecture drawing, every repository path
 * it names, every `npm run` script and the `svc` services it lists. (The start banner has its
 * own test, banner.test.ts; the variables the code reads are all listed, config.test.ts.)
 * Runs from cli/dist/src/.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(`${REPO}README.md`, 'utf8');
const PACKAGE = JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { scripts: Record<string, string> };

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}`);
  if (start < 0) throw new Error(`README: section "## ${title}" is missing`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Rows `| variable(s) | default(s) | meaning |` of the configuration reference tables. */
function variableRows(): { variables: string[]; defaults: string }[] {
  return section('Configuration reference')
    .split('\n')
    .filter((line) => /^\| `[A-Z][A-Z0-9_]+`/.test(line))
    .map((line) => {
      const cells = line.split('|').map((c) => c.trim());
      return { variables: ticked(cells[1]!).filter((v) => /^[A-Z][A-Z0-9_]+$/.test(v)), defaults: cells[2]! };
    });
}

describe('the README', () => {
  const config = loadPlatformConfig({}) as unknown as Record<string, unknown>;

  it('names only variables the platform reads', () => {
    const known = new Set(Object.keys(configSchema.shape));
    const named = variableRows().flatMap((r) => r.variables);
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((v) => !known.has(v))).toEqual([]);
  });

  it('states the defaults the code applies (rows with one literal default per variable)', () => {
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const { variables, defaults } of variableRows()) {
      const values = ticked(defaults);
      // "`a` / `b`" for "`A` / `B`"; anything in prose ("generated in embedded mode", "unset") is not a literal.
      if (values.length !== variables.length || defaults.includes('<') || defaults.replace(/`[^`]*`/g, '').replace(/[\s/,]/g, '') !== '') continue;
      variables.forEach((variable, i) => {
        const actual = config[variable];
        const shown = Array.isArray(actual) ? actual.join(',') : String(actual);
        checked.push(variable);
        if (shown !== values[i]) wrong.push(`${variable}: README says ${values[i]}, the code ${shown}`);
      });
    }
    expect(wrong).toEqual([]);
    expect(checked).toEqual(expect.arrayContaining(['SERVER_PORT', 'SVC_ROUTER_PORT', 'SVC_DASHBOARD_PORT', 'SVC_INSIGHT_CONCURRENCY']));
  });

  it('draws the services on their default ports', () => {
    const drawing = /## Architecture\n+```\n([\s\S]*?)```/.exec(README)![1]!;
    const ports: Record<string, unknown> = { 'rest-bridge': config.SERVER_PORT, router: config.SVC_ROUTER_PORT, insight: config.SVC_INSIGHT_PORT, llm: config.SVC_LLM_PORT, cms: config.SVC_CMS_PORT };
    for (const [name, port] of Object.entries(ports)) expect(drawing).toMatch(new RegExp(`${name} +:${String(port)}\\b`));
    expect(README).toMatch(new RegExp(`dashboard\\s+on\\s+port\\s+${String(config.SVC_DASHBOARD_PORT)}\\b`));
  });

  it('names only repository paths that exist', () => {
    const paths = new Set(
      ticked(README.replace(/```[\s\S]*?```/g, ''))
        .map((p) => p.replace(/:\d+$/, '').replace(/\/$/, ''))
        .filter((p) => /^(subgraphs|cli|rest-bridge|router|dashboard|test|schema|scripts|docker|bench)\//.test(p) && !/[<>*{}\s]/.test(p) && !p.startsWith('test/output') && !p.startsWith('bench/.tmp')), // test/output and bench/.tmp: written by the tests and the benchmarks
    );
    expect(paths.size).toBeGreaterThan(20);
    expect([...paths].filter((p) => !existsSync(`${REPO}${p}`))).toEqual([]);
  });

  it('runs only npm scripts that package.json has', () => {
    const scripts = new Set([...README.matchAll(/npm run ([a-z:-]+)/g)].map((m) => m[1]!));
    expect(scripts.size).toBeGreaterThan(3);
    expect([...scripts].filter((s) => !(s in PACKAGE.scripts))).toEqual([]);
  });

  it('lists the services `svc` starts', () => {
    const row = section('Running').split('\n').find((line) => line.startsWith('| `npx svc <service>`'))!;
    const listed = ticked(row.split('|')[2]!).filter((name) => (SERVICES as readonly string[]).includes(name) || /^[a-z-]+$/.test(name));
    expect(new Set(listed)).toEqual(new Set(SERVICES));
  });
});
