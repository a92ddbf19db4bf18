import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kind, parse, print, type DefinitionNode } from 'graphql';

/**
 * Loads the named operations the route table refers to. Each operation is sent with the
 * fragments of its file, so files stay small and self-contained.
 */
export async function loadOperations(dir: string): Promise<Map<string, string>> {
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
      const used = fragments.filter((f) => print(definition).includes(`...${(f as { name: { value: string } }).name.value}`));
      operations.set(name, print({ kind: Kind.DOCUMENT, definitions: [definition, ...used] as DefinitionNode[] }));
    }
  }
  return operations;
}
