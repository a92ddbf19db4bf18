// Writes one benchmark's part of the "Crawling" section of bench/RESULTS.md, leaving everything
// else in the file as it is (the model gateway section above it, the other crawling part).
//
// The section is appended when missing; each part sits between HTML comment markers
// (`<!-- bench:<key>:start -->` ... `<!-- bench:<key>:end -->`) and only that span is replaced.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
export const PARTS = ['crawl-throughput', 'vector-search'];

const SECTION_HEADING = '# Crawling';
const SECTION_INTRO = `${SECTION_HEADING}

Reproduce both parts: \`npm run bench:crawl\` from the repository root (builds, then runs \`node bench/crawl-throughput.js\` and \`node bench/vector-search.js\`; the vector part needs PostgreSQL with pgvector on loopback, as \`npm test\` does — \`bash scripts/provision.sh\`). Each script rewrites only its own part below. \`BENCH_NO_WRITE=1\` prints instead of writing.`;

const start = (key) => `<!-- bench:${key}:start -->`;
const end = (key) => `<!-- bench:${key}:end -->`;

/** Replaces (or creates) part `key` of the Crawling section with `markdown`. */
export function writeResultsPart(key, markdown) {
  if (!PARTS.includes(key)) throw new Error(`unknown results part ${key}`);
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '';
  if (!text.includes(`\n${SECTION_HEADING}\n`) && !text.startsWith(`${SECTION_HEADING}\n`)) {
    text = `${text.replace(/\s*$/, '')}\n\n${SECTION_INTRO}\n`;
  }
  for (const part of PARTS) {
    if (!text.includes(start(part))) text = `${text.replace(/\s*$/, '')}\n\n${start(part)}\n${end(part)}\n`;
  }
  const from = text.indexOf(start(key));
  const to = text.indexOf(end(key));
  if (to < from) throw new Error(`${RESULTS_FILE}: the markers of ${key} are out of order`);
  text = `${text.slice(0, from)}${start(key)}\n${markdown.replace(/\s*$/, '')}\n${text.slice(to)}`;
  writeFileSync(RESULTS_FILE, text);
}

/** Replaces (or appends) the whole `## <title>` section of bench/RESULTS.md with `md` (the analysis benchmarks). */
export async function writeResultsSection(title, md) {
  const existing = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '';
  const marker = `## ${title}`;
  const section = `${marker}\n\n${md}`;
  writeFileSync(RESULTS_FILE, existing.includes(marker) ? existing.replace(new RegExp(`${marker}[\\s\\S]*?(?=\\n## |$)`), section) : `${existing.trimEnd()}\n\n${section}`);
}
