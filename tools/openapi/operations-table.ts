import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import type { Operation } from '#shared/operations/operation';

const successOf = (operation: Operation): string =>
  Object.entries(operation.responses)
    .map(([status, response]) => {
      const headers = Object.keys(response.headers ?? {}).map((name) => `\`${name}\``);
      return headers.length > 0 ? `${status}, with ${headers.join(', ')}` : status;
    })
    .join('; ');

/** The table of every operation: its id, method and path, what it does, and what it answers. */
export const operationsTable = (operations: readonly Operation[]): string =>
  [
    '| Operation | Method and path | What it does | Success |',
    '|---|---|---|---|',
    ...operations.map(
      (operation) =>
        `| \`${operation.operationId}\`${operation.deprecation ? ' (deprecated)' : ''} | \`${operation.method} ${operation.path}\` | ${operation.summary} | ${successOf(operation)} |`,
    ),
  ].join('\n');

/**
 * A table a generator (`npm run openapi`, `npm run costs`) writes into `file` below the line
 * `marker`, made from `input` (by default the operations); `update` remakes it in `text`.
 */
export const generatedTable = <T = readonly Operation[]>(
  file: string,
  marker: string,
  table: (input: T) => string,
) => ({
  path: resolve(PROJECT_ROOT, file),
  marker,
  read: (): string => readFileSync(resolve(PROJECT_ROOT, file), 'utf8'),
  update: (text: string, input: T): string => {
    const lines = text.split('\n');
    const start = lines.indexOf(marker);
    if (start < 0) throw new Error(`${file} has no line ${marker}`);
    let end = start + 1;
    while (lines[end]?.startsWith('|')) end += 1;
    return [...lines.slice(0, start + 1), table(input), ...lines.slice(end)].join('\n');
  },
});

export const OPERATIONS_TABLE = generatedTable(
  'docs/interface.md',
  '<!-- operations: made by npm run openapi from OPERATIONS -->',
  operationsTable,
);
