#!/usr/bin/env node
// `npx svc <service>`: compiles the TypeScript on first use, then runs the built entry.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(`svc: Node ${process.versions.node} is too old (22.17 or newer is needed). Use \`npm start\`, which fetches Node 24, or \`. scripts/node-env.sh\` after \`bash scripts/provision.sh\`.\n`);
  process.exit(1);
}
const entry = new URL('../dist/src/svc.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  process.stderr.write('svc: first run: compiling the TypeScript sources (tsc -b) ...\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // Compiler output goes to stderr: stdout may be an MCP stdio stream.
  execFileSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: ['ignore', 2, 'inherit'] });
}
await import(entry.href);
