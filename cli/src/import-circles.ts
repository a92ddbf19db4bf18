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
  const tree = await dependencyTree(root, globs);
  const unresolved = Object.values(tree).flatMap((deps) => deps ?? []).filter((dep) => dep.id === null && dep.request.startsWith('.'));
  if (unresolved.length) throw new Error(`Imports that resolve to no file: ${unresolved.map((dep) => `${dep.issuer} → ${dep.request}`).join(', ')}`);
  // Paths come relative to `context`; each circle starts at its first file by name, so the same
  // circle is reported the same way whatever file the search met first.
  return parseCircular(tree).map((circle) => {
    const first = circle.indexOf([...circle].sort()[0]!);
    return [...circle.slice(first), ...circle.slice(0, first)];
  });
}

/** dpdm's import graph of the sources (node_modules and build output left out), as both checks read it. */
function dependencyTree(root: string, globs: readonly string[]) {
  return parseDependencyTree([...globs], { cwd: root, context: root, transform: false, skipDynamicImports: false, exclude: /\/(node_modules|dist)\// });
}

/** A package's folder under its `src/` (a file directly in `src/` is a node of its own). */
function folderOf(file: string): { pkg: string; folder: string } | undefined {
  const match = /^(.*?\/src)\/(.+)$/.exec(file);
  if (!match) return undefined;
  const [, pkg, rest] = match;
  return { pkg: pkg!, folder: rest!.includes('/') ? rest!.slice(0, rest!.indexOf('/')) : rest! };
}

/**
 * Circles between the folders of one package (`subgraphs/insight/src/tools` → `…/service` →
 * `…/tools`), tests left out (a test may reach anywhere): a file circle is caught by
 * `findImportCircles`, but two folders can lean on each other through different files, and then
 * neither can be read, moved or tested below the other. Each circle is its folders (relative to
 * `root`, the first by name first) and, for each step, a file that makes it.
 */
export async function findFolderCircles(root: string, globs: readonly string[] = SOURCE_GLOBS): Promise<{ folders: string[]; edges: string[] }[]> {
  const tree = await dependencyTree(root, globs);
  const edges = new Map<string, Map<string, string>>();
  for (const [issuer, deps] of Object.entries(tree)) {
    const from = folderOf(issuer);
    if (!from || issuer.endsWith('.test.ts')) continue;
    for (const dep of deps ?? []) {
      const to = dep.id ? folderOf(dep.id) : undefined;
      if (!to || to.pkg !== from.pkg || to.folder === from.folder) continue;
      const a = `${from.pkg}/${from.folder}`;
      const b = `${to.pkg}/${to.folder}`;
      const out = edges.get(a) ?? new Map<string, string>();
      if (!out.has(b)) out.set(b, `${issuer} → ${dep.id}`);
      edges.set(a, out);
    }
  }
  // Tarjan's strongly connected components: each of more than one folder is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: { folders: string[]; edges: string[] }[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      component.push(w);
      if (w === v) break;
    }
    if (component.length < 2) return;
    const folders = component.sort();
    const inside = new Set(folders);
    circles.push({ folders, edges: folders.flatMap((a) => [...(edges.get(a) ?? [])].filter(([b]) => inside.has(b)).map(([, file]) => file)) });
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return circles.sort((x, y) => (x.folders[0]! < y.folders[0]! ? -1 : 1));
}
