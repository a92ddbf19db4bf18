import { parseCircular, parseDependencyTree } from 'dpdm';

/**
 * The TypeScript sources of every package, as globs from the repository root (tests included:
 * a test importing its subject is a dependency like any other).
 */
export const SOURCE_GLOBS = ['subgraphs/*/src/**/*.ts', 'router/src/**/*.ts', 'rest-bridge/src/**/*.ts', 'dashboard/src/**/*.ts', 'cli/src/**/*.ts', 'test/src/**/*.ts'];

/**
 * Import circles among the TypeScript sources under `root` (dpdm over the import graph, with
 * `import type` edges counted: a circle of types still has no file to start reading from).
 * Each circle is its files, relative to `root`, in import order from the first by name. `.js`
 * specifiers are resolved to their `.ts` sources through the nearest tsconfig.json (NodeNext), as
 * tsc does; a relative import that resolves to nothing is an error (it would hide an edge).
 */
export async function findImportCircles(root: string, globs: readonly string[] = SOURCE_GLOBS): Promise<string[][]> {
  const tree = await parseDependencyTree([...globs], { cwd: root, context: root, transform: false, skipDynamicImports: false, exclude: /\/(node_modules|dist)\// });
  const unresolved = Object.values(tree).flatMap((deps) => deps ?? []).filter((dep) => dep.id === null && dep.request.startsWith('.'));
  if (unresolved.length) throw new Error(`Imports that resolve to no file: ${unresolved.map((dep) => `${dep.issuer} → ${dep.request}`).join(', ')}`);
  // Paths come relative to `context`; each circle starts at its first file by name, so the same
  // circle is reported the same way whatever file the search met first.
  return parseCircular(tree).map((circle) => {
    const first = circle.indexOf([...circle].sort()[0]!);
    return [...circle.slice(first), ...circle.slice(0, first)];
  });
}
