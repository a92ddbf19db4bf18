import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What `npm install` may run and what it says: every dependency with an install script is
 * allowed or denied by name in package.json's allowScripts (npm 11 lists the others as
 * unreviewed), and the engine facts npm's silenced EBADENGINE lines carried are stated once by
 * scripts/check-engines.js (the root postinstall). Runs from cli/dist/src/.
 */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CHECK = `${REPO}scripts/check-engines.js`;
const pkg = JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')) as { scripts: Record<string, string>; allowScripts?: Record<string, boolean> };
const lock = JSON.parse(readFileSync(`${REPO}package-lock.json`, 'utf8')) as { packages: Record<string, { name?: string; hasInstallScript?: boolean; optional?: boolean }> };
type Checker = { unsatisfied(lock: unknown, version: string, satisfies: (v: string, r: string) => boolean): { name: string; range: string }[] };
const nameOf = (path: string) => path.split('node_modules/').pop()!;

describe('the install policy', () => {
  it('decides for every dependency with an install script, and names only installed ones', () => {
    const withScripts = new Set(Object.entries(lock.packages).filter(([path, p]) => path && p.hasInstallScript && path.includes('node_modules/')).map(([path]) => nameOf(path)));
    const declared = pkg.allowScripts ?? {};
    expect(withScripts.size).toBeGreaterThan(0);
    expect([...withScripts].filter((name) => !(name in declared))).toEqual([]);
    expect(Object.keys(declared).filter((name) => !withScripts.has(name))).toEqual([]);
    // Telemetry never runs; jest's native resolver binding check does.
    expect(declared['@scarf/scarf']).toBe(false);
    expect(declared['unrs-resolver']).toBe(true);
  });

  it('replaces npm\'s warnings with its own engine check, run after every install', () => {
    expect(readFileSync(`${REPO}.npmrc`, 'utf8')).toMatch(/^loglevel=error$/m);
    expect(pkg.scripts.postinstall).toBe('node scripts/check-engines.js');
    expect(pkg.scripts.start).toBe('bash scripts/svc.sh --build all');
  });

  it('starts without npm warnings about settings other npm versions left in ~/.npmrc (nodedir and the like)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-npmrc-'));
    try {
      await writeFile(join(dir, 'npmrc'), 'nodedir=/usr\nsettingfromanothernpm=1\n');
      const said = spawnSync('npm', ['--userconfig', join(dir, 'npmrc'), 'pkg', 'get', 'name'], { cwd: REPO, encoding: 'utf8' });
      expect(said.status).toBe(0);
      expect(said.stdout.trim()).toBe('"svc-platform"');
      expect(said.stderr).not.toMatch(/npm warn/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names each package the running Node does not satisfy, and nothing else', async () => {
    const { unsatisfied } = (await import(CHECK)) as Checker;
    const fake = {
      name: 'svc-platform',
      packages: {
        '': { engines: { node: '>=22.17.0' } },
        'node_modules/jsdom': { version: '31.0.1', engines: { node: '^22.22.2 || ^24.15.0 || >=26.0.0' } },
        'node_modules/old': { version: '1.0.0', engines: { node: '>=14' } },
        'node_modules/fsevents': { version: '2.3.3', optional: true, engines: { node: '>=99' } },
      },
    };
    const major = (v: string) => Number(v.replace(/^v/, '').split('.')[0]);
    // A stand-in for semver, enough for these ranges: the lowest major each alternative admits.
    const satisfies = (version: string, range: string) => range.split('||').some((alt) => major(version) >= Number(/\d+/.exec(alt)![0]));
    expect(unsatisfied(fake, 'v20.20.2', satisfies)).toEqual([
      { name: 'svc-platform (this repository)', range: '>=22.17.0' },
      { name: 'jsdom@31.0.1', range: '^22.22.2 || ^24.15.0 || >=26.0.0' },
    ]);
    expect(unsatisfied(fake, 'v24.1.0', satisfies)).toEqual([]);
  });

  it('passes on the Node the tests run on, and says so', () => {
    expect(() => execFileSync(process.execPath, [CHECK, '--quiet'])).not.toThrow();
    const said = spawnSync(process.execPath, [CHECK], { encoding: 'utf8' });
    expect(said.status).toBe(0);
    expect(said.stderr).toContain(`Node ${process.version} satisfies every installed package's engine range`);
  });
});
