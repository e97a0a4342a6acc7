import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS, OPERATIONS } from '#functions/operations';
import { PROJECT_ROOT } from '#infra/project-root';
import { kebabName } from '#shared/composition/function';
import { OPERATIONS_TABLE } from '#tools/openapi/operations-table';
import { DOCUMENTS, proseLines } from '../support/prose';

/**
 * A document that counts the operations, or lists some of them as if they were all, goes stale
 * with the next operation ("its four functions" was true until the fifth). The documents say
 * "every operation", or hold the whole list (a table generated from it, or held by this test):
 * these tests fail when one names a count of functions, operations, alarms or log groups, or an
 * enumeration of operations that is not the list. (The decision records keep the figures of
 * their day, and are left out.)
 */

/** Each operation by every name the documents may give it: `listPets`, `ListPets`, `list-pets`. */
const NAMES = new Map(
  OPERATIONS.flatMap(({ name }) => [
    [name, name],
    [name.charAt(0).toUpperCase() + name.slice(1), name],
    [kebabName(name), name],
  ]),
);
const EVERY_OPERATION = new Set(OPERATIONS.map(({ name }) => name));

const NUMBER = String.raw`(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+)`;
const COUNT = new RegExp(
  String.raw`\b${NUMBER}\s+(?:(?:lambda|api|operation|handler)\s+)?(?:functions|operations|log groups|alarms)\b`,
  'gi',
);

const NAME = String.raw`\x60?([A-Za-z][A-Za-z-]*)\x60?`;
/** Names joined only by a comma, `and`, `or`, a slash or a middle dot: an enumeration. */
const ENUMERATION = new RegExp(
  String.raw`${NAME}(?:(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*|\s*·\s*)(?:the deprecated\s+)?${NAME})+`,
  'g',
);

/** The operations an enumeration names, when it names two or more and nothing else. */
const enumeratedIn = (line: string): string[][] =>
  [...line.matchAll(ENUMERATION)]
    .map(([match]) =>
      [...match.matchAll(new RegExp(NAME, 'g'))].map(([, word]) => word ?? '').filter((word) => word !== ''),
    )
    .map((words) => words.filter((word) => !['and', 'or', 'the', 'deprecated'].includes(word)))
    .filter((words) => words.length >= 2 && words.every((word) => NAMES.has(word)))
    .map((words) => [...new Set(words.map((word) => NAMES.get(word) ?? word))]);

/** The operations the first cells of a table's rows name, when two or more rows name one. */
const tabulatedIn = (lines: readonly string[]): string[][] => {
  const tables: string[][] = [];
  let rows: string[] = [];
  for (const line of [...lines, '']) {
    if (line.startsWith('|')) {
      const first = /^\|\s*\x60?([A-Za-z-]+)\x60?/.exec(line)?.[1];
      const operation = first && NAMES.get(first);
      if (operation) rows.push(operation);
    } else {
      if (rows.length >= 2) tables.push([...new Set(rows)]);
      rows = [];
    }
  }
  return tables;
};

describe.each(DOCUMENTS)('%s', (document) => {
  const lines = proseLines(readFileSync(join(PROJECT_ROOT, document), 'utf8'));

  it('counts no functions, operations, alarms or log groups: it says "every operation"', () => {
    const counts = lines.flatMap((line) => [...line.matchAll(COUNT)].map(([count]) => count));

    expect(counts).toEqual([]);
  });

  it('lists the operations only whole: an enumeration or a table of them names every one', () => {
    const partial = [...lines.flatMap(enumeratedIn), ...tabulatedIn(lines)].filter(
      (named) => named.length !== EVERY_OPERATION.size || !named.every((name) => EVERY_OPERATION.has(name)),
    );

    expect(partial).toEqual([]);
  });
});

describe('docs/interface.md', () => {
  it('holds the table of operations `npm run openapi` makes from the list (run it when this fails)', () => {
    const text = OPERATIONS_TABLE.read();

    expect(text).toContain(OPERATIONS_TABLE.marker);
    expect(OPERATIONS_TABLE.update(text, CONTRACTS)).toBe(text);
  });
});

describe('the check of the documents', () => {
  it('finds a count, a partial enumeration and a partial table', () => {
    const text = [
      'The REST API, its four functions and 18 alarms.',
      'Functions whose only metric is errors (listPets, getPet, the authorizer).',
      '| `listPets` | Scan |',
      '| `getPet` | GetItem |',
    ];

    expect(text.flatMap((line) => [...line.matchAll(COUNT)].map(([count]) => count))).toEqual([
      'four functions',
      '18 alarms',
    ]);
    expect(text.flatMap(enumeratedIn)).toEqual([['listPets', 'getPet']]);
    expect(tabulatedIn(text)).toEqual([['listPets', 'getPet']]);
    expect(proseLines('<!-- costs:idle -->\n| Alarms: 35 alarms |\n\nSix alarms.')).toEqual([
      '',
      'Six alarms.',
    ]);
  });
});
