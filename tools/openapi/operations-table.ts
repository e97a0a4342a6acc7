import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import type { Operation } from '#shared/operations/operation';

/** docs/interface.md, whose table of operations `npm run openapi` writes below this marker. */
export const INTERFACE_DOC_PATH = resolve(PROJECT_ROOT, 'docs/interface.md');
export const OPERATIONS_MARKER = '<!-- operations: made by npm run openapi from OPERATIONS -->';

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
 * `text` with the Markdown table below the line `marker` replaced by `table`: how every table
 * `npm run openapi` writes into a document is kept there. Fails naming `doc` when the marker is missing.
 */
export const withTableAfter = (text: string, marker: string, table: string, doc: string): string => {
  const lines = text.split('\n');
  const start = lines.indexOf(marker);
  if (start < 0) throw new Error(`${doc} has no line ${marker}`);
  let end = start + 1;
  while (lines[end]?.startsWith('|')) end += 1;
  return [...lines.slice(0, start + 1), table, ...lines.slice(end)].join('\n');
};

/** `text` (docs/interface.md) with the table below its marker made from `operations`. */
export const withOperationsTable = (text: string, operations: readonly Operation[]): string =>
  withTableAfter(text, OPERATIONS_MARKER, operationsTable(operations), 'docs/interface.md');

export const readInterfaceDoc = (): string => readFileSync(INTERFACE_DOC_PATH, 'utf8');
