import { fileURLToPath } from 'node:url';

/** Repository root, from cli/dist/src/. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const SCHEMA_DIR = fileURLToPath(new URL('../../../schema/', import.meta.url));
export const SUPERGRAPH_FILE = fileURLToPath(new URL('../../../schema/supergraph.graphql', import.meta.url));
export const OPERATIONS_DIR = fileURLToPath(new URL('../../../schema/operations/', import.meta.url));
