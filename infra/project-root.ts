import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: entries in the route table, docs and node_modules are relative to it. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
