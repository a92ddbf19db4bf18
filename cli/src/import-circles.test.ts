import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { findImportCircles } from './import-circles.js';
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
