import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '#functions/operations';
import { PROJECT_ROOT } from '#infra/project-root';
import { ERROR_STATUS } from '#shared/http/error-body';
import { MAX_ENTITY_TAGS } from '#shared/http/limits';

/**
 * docs/interface.md is written by hand, for people; these tests keep its two tables true to the
 * code: the operations (from their descriptors) and the Error codes (from ERROR_STATUS), and the
 * figures it gives of a limit.
 */

const document = readFileSync(join(PROJECT_ROOT, 'docs/interface.md'), 'utf8');

/** The rows of the table whose header row starts with `header`, as cells. */
const tableAfter = (header: string): string[][] => {
  const lines = document.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  expect(start, `a table starting ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
};

describe('docs/interface.md', () => {
  it('lists every Error code with its HTTP status, by status, and no other', () => {
    const rows = tableAfter('| `code` | HTTP |').map(([code, status]) => [code, Number(status)]);

    const expected = Object.entries(ERROR_STATUS)
      .map(([code, status]) => [`\`${code}\``, status])
      .sort(([, a], [, b]) => Number(a) - Number(b));
    expect(rows).toEqual(expected);
  });

  it('lists every operation with its method and path, the deprecated one marked so', () => {
    const rows = tableAfter('| Operation | Method and path |').map(([name, route]) => [
      name,
      route?.split('?')[0]?.replace(/`/g, '').split(' with ')[0],
    ]);

    expect(rows).toEqual(
      CONTRACTS.map((operation) => [
        `\`${operation.operationId}\`${operation.deprecation ? ' (deprecated)' : ''}`,
        `${operation.method} ${operation.path}`,
      ]),
    );
  });

  it('gives If-Match and If-None-Match the most entity tags the code reads', () => {
    const preconditions = tableAfter('| Question | Decision |').filter(([point]) =>
      /^`If-(None-)?Match` \(change, removal\)$/.test(point ?? ''),
    );

    expect(
      preconditions.map(([, decision]) => decision?.match(/a list of at most (\d+) entity tags/)?.[1]),
    ).toEqual([String(MAX_ENTITY_TAGS), String(MAX_ENTITY_TAGS)]);
  });
});
