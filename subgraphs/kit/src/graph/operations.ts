import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, type DefinitionNode } from 'graphql';

/**
 * The repository's `schema/operations/`, from kit/dist/src/graph/ (the container image keeps
 * the same layout). Every operation a process sends to the graph is a named operation there,
 * so `npm run schema:check` validates all of them against the supergraph.
 */
export const OPERATIONS_DIR = fileURLToPath(new URL('../../../../../schema/operations/', import.meta.url));

/** The fragments a text spreads, and the fragments those spread, in file order. */
function fragmentsUsedBy(text: string, fragments: DefinitionNode[]): DefinitionNode[] {
  const name = (f: DefinitionNode) => (f as { name: { value: string } }).name.value;
  const used = new Set<DefinitionNode>();
  const pending = [text];
  while (pending.length) {
    const current = pending.pop()!;
    for (const f of fragments) {
      if (!used.has(f) && new RegExp(`\\.\\.\\.${name(f)}\\b`).test(current)) {
        used.add(f);
        pending.push(print(f));
      }
    }
  }
  return fragments.filter((f) => used.has(f));
}

/**
 * Loads the named operations of every `.graphql` file in `dir`. Each operation is sent with the
 * fragments of its file, so files stay small and self-contained.
 */
export async function loadOperations(dir: string = OPERATIONS_DIR): Promise<Map<string, string>> {
  const operations = new Map<string, string>();
  const files = (await readdir(dir)).filter((f) => f.endsWith('.graphql')).sort();
  for (const file of files) {
    const document = parse(await readFile(join(dir, file), 'utf8'));
    const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
      const name = definition.name?.value;
      if (!name) throw new Error(`${file}: every operation needs a name`);
      if (operations.has(name)) throw new Error(`${file}: operation ${name} is defined twice`);
      const used = fragmentsUsedBy(print(definition), fragments);
      operations.set(name, print({ kind: Kind.DOCUMENT, definitions: [definition, ...used] as DefinitionNode[] }));
    }
  }
  return operations;
}
