import { readFile, writeFile } from 'node:fs/promises';

/** Replaces (or appends) the `## <title>` section of bench/RESULTS.md with `md`. */
export async function writeResultsSection(title, md) {
  const file = new URL('./RESULTS.md', import.meta.url);
  const existing = await readFile(file, 'utf8');
  const marker = `## ${title}`;
  const section = `${marker}\n\n${md}`;
  await writeFile(file, existing.includes(marker) ? existing.replace(new RegExp(`${marker}[\\s\\S]*?(?=\\n## |$)`), section) : `${existing.trimEnd()}\n\n${section}`);
}
