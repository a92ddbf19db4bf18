import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { findFolderCircles, findImportCircles } from './import-circles.js';
import { REPO_ROOT } from './paths.js';

describe('import circles', () => {
  it('the repository has none', async () => {
    const circles = await findImportCircles(REPO_ROOT);
    // A circle is listed file by file so the message says where to cut it.
    expect(circles.map((circle) => circle.join(' → '))).toEqual([]);
  }, 120_000);

  it('finds a circle, type-only edges included, and leaves a chain alone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-circles-'));
    try {
      await mkdir(join(root, 'src'));
      await writeFile(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }));
      await writeFile(join(root, 'src/contract.ts'), "import { CODE } from './agent.js';\nexport const schema = CODE;\n");
      await writeFile(join(root, 'src/agent.ts'), "import type { Budget } from './budget.js';\nexport const CODE = /x/;\nexport interface Agent { budget: Budget }\n");
      await writeFile(join(root, 'src/budget.ts'), "import { schema } from './contract.js';\nexport interface Budget { schema: typeof schema }\n");
      await writeFile(join(root, 'src/leaf.ts'), "import { CODE } from './agent.js';\nexport const leaf = CODE;\n");
      expect(await findImportCircles(root, ['src/**/*.ts'])).toEqual([['src/agent.ts', 'src/budget.ts', 'src/contract.ts']]);
      await writeFile(join(root, 'src/budget.ts'), 'export interface Budget { limit: number }\n');
      expect(await findImportCircles(root, ['src/**/*.ts'])).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('folder circles', () => {
  it('no two folders of a package import each other, through any files', async () => {
    const circles = await findFolderCircles(REPO_ROOT);
    // Listed with a file for each step, so the message says what to move.
    expect(circles.map((c) => `${c.folders.join(' ⇄ ')}: ${c.edges.join('; ')}`)).toEqual([]);
  }, 120_000);

  it('finds folders leaning on each other through different files, tests aside, and leaves a chain alone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-folders-'));
    try {
      for (const dir of ['pkg/src/tools', 'pkg/src/service', 'pkg/src/domain']) await mkdir(join(root, dir), { recursive: true });
      await writeFile(join(root, 'pkg/tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }));
      await writeFile(join(root, 'pkg/src/domain/money.ts'), 'export type Money = number;\n');
      await writeFile(join(root, 'pkg/src/service/metrics.ts'), "import type { Money } from '../domain/money.js';\nexport const total = (m: Money) => m;\n");
      await writeFile(join(root, 'pkg/src/tools/tool.ts'), "import { total } from '../service/metrics.js';\nexport const run = total;\n");
      await writeFile(join(root, 'pkg/src/tools/tool.test.ts'), "import { total } from '../service/metrics.js';\nexport const t = total;\n");
      await writeFile(join(root, 'pkg/src/service/reads.test.ts'), "import { run } from '../tools/tool.js';\nexport const r = run;\n");
      expect(await findFolderCircles(root, ['pkg/src/**/*.ts'])).toEqual([]);
      await writeFile(join(root, 'pkg/src/tools/shapes.ts'), 'export interface Hit { score: number }\n');
      await writeFile(join(root, 'pkg/src/service/reads.ts'), "import type { Hit } from '../tools/shapes.js';\nexport const best = (h: Hit) => h.score;\n");
      expect(await findFolderCircles(root, ['pkg/src/**/*.ts'])).toEqual([{
        folders: ['pkg/src/service', 'pkg/src/tools'],
        edges: ['pkg/src/service/reads.ts → pkg/src/tools/shapes.ts', 'pkg/src/tools/tool.ts → pkg/src/service/metrics.ts'],
      }]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
