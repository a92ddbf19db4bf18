import { OPERATIONS_DIR } from '@svc/kit';
import { Kind, parse } from 'graphql';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One GraphiQL tab: its editor text (the explaining comments first), variables and headers. */
export interface GraphiqlTab {
  query: string;
  variables?: string;
  headers?: string;
}

/** The file holding the opening tabs; `npm run schema:check` validates its operations like every other. */
export const GRAPHIQL_TABS_FILE = join(OPERATIONS_DIR, 'graphiql.graphql');

const VARIABLES = /^#\s*variables:\s*(.*)$/;

/**
 * Tabs from a document of named operations: each operation with the comment lines right above
 * it (the file's own header, before the first blank line, is left out); a `# variables: {...}`
 * comment becomes the tab's variables. Throws naming the operation when that line is not JSON.
 */
export function parseGraphiqlTabs(text: string): GraphiqlTab[] {
  const tabs: GraphiqlTab[] = [];
  let previousEnd = 0;
  for (const definition of parse(text).definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || !definition.loc) continue;
    const between = text.slice(previousEnd, definition.loc.start).split('\n');
    previousEnd = definition.loc.end;
    // The comment block directly above the operation (up to the nearest blank line).
    const comments: string[] = [];
    for (let i = between.length - 1; i >= 0; i--) {
      const line = between[i]!.trim();
      if (line === '' && comments.length) break;
      if (line.startsWith('#')) comments.unshift(line);
    }
    let variables: string | undefined;
    const shown = comments.filter((line) => {
      const match = VARIABLES.exec(line);
      if (!match) return true;
      try {
        variables = JSON.stringify(JSON.parse(match[1]!), null, 2);
      } catch {
        throw new Error(`graphiql tabs: the variables line above ${definition.name?.value ?? 'an operation'} is not JSON: ${match[1]}`);
      }
      return false;
    });
    tabs.push({ query: [...shown, text.slice(definition.loc.start, definition.loc.end)].join('\n') + '\n', variables });
  }
  return tabs;
}

/** The headers every tab opens with: where the token goes and how to get one, and the demo tenant and site. */
export const DEFAULT_HEADERS = JSON.stringify(
  {
    Authorization: 'Bearer <paste accessToken from tab 1>',
    'X-Svc-Tenant-Id': 'demo',
    'X-Svc-Site-Key': 'demo',
  },
  null,
  2,
);

export async function loadGraphiqlTabs(file = GRAPHIQL_TABS_FILE): Promise<GraphiqlTab[]> {
  return parseGraphiqlTabs(await readFile(file, 'utf8')).map((tab) => ({ ...tab, headers: DEFAULT_HEADERS }));
}
