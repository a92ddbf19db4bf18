import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

/**
 * Every benchmark runs in its smoke mode (SVC_BENCH_SMOKE=1: a few requests, tiny sizes, no
 * timing asserted, RESULTS.md untouched) and exits 0, so a moved or renamed module cannot
 * break a benchmark silently. The scripts are every bench/*.js that no other bench file names
 * as `./<file>` (those are its helpers: imported modules, forked processes, worker threads), so a
 * new benchmark is included without being listed here. A script that does not read
 * SVC_BENCH_SMOKE fails with a message saying so, rather than running at full size.
 */
const BENCH = fileURLToPath(new URL('../../../bench/', import.meta.url));
const RESULTS = join(BENCH, 'RESULTS.md');
const SMOKE_TIMEOUT_MS = 270_000;

const files = readdirSync(BENCH).filter((name) => name.endsWith('.js')).sort();
const sources = new Map(files.map((name) => [name, readFileSync(join(BENCH, name), 'utf8')]));
const isHelper = (name: string) => files.some((other) => other !== name && sources.get(other)!.includes(`./${name}`));
const scripts = files.filter((name) => !isHelper(name));

function runSmoke(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(BENCH, name)], {
      env: { ...process.env, SVC_BENCH_SMOKE: '1', NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), SMOKE_TIMEOUT_MS - 10_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('benchmarks in smoke mode', () => {
  it('finds the benchmark scripts and tells them from their helpers', () => {
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts).toContain('crawl-throughput.js');
    expect(scripts).not.toContain('results-section.js');
  });

  it.each(scripts)('bench/%s runs with SVC_BENCH_SMOKE=1 and exits 0', async (name) => {
    if (!sources.get(name)!.includes('SVC_BENCH_SMOKE')) {
      throw new Error(`bench/${name} has no smoke mode: make it honour SVC_BENCH_SMOKE=1 (a few requests, tiny sizes, no timing asserted, RESULTS.md untouched, exit 0)`);
    }
    const before = readFileSync(RESULTS, 'utf8');
    const { code, output } = await runSmoke(name);
    if (code !== 0) throw new Error(`bench/${name} exited with ${code} in smoke mode; its last output:\n${output}`);
    expect(code).toBe(0);
    expect(readFileSync(RESULTS, 'utf8')).toBe(before);
  }, SMOKE_TIMEOUT_MS);
});
