import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NewPet } from '#shared/domain/pet';
import { readCommittedEventsYaml } from '#tools/asyncapi/document-file';
import { Contract, type PatternEngine } from '#tools/contract/conformance';
import { readCommittedYaml } from '#tools/openapi/document-file';

/**
 * Every `pattern` of docs/openapi.yaml and docs/asyncapi.yaml as other tools read it. JSON Schema recommends a subset of
 * regular expressions for interoperability; Postman's runner, Python's jsonschema and validators that
 * compile without the `u` flag each read a pattern their own way, and a Unicode property escape
 * (`\P{Cc}`) is refused by Python's `re` and matches nothing without the flag. Each pattern compiles
 * in JavaScript with and without the `u` flag and in Python's `re`, and every documented example
 * matches the patterns its schema holds, in each.
 */

type Json = { [key: string]: unknown };

const document = parse(readCommittedYaml()) as Json;
const eventsDocument = parse(readCommittedEventsYaml()) as Json;

const child = (pointer: string, key: string) =>
  `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Every `pattern` keyword of the document. */
const patternsIn = (node: unknown): string[] => {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [value] : patternsIn(value),
  );
};

interface Documented {
  readonly pointer: string;
  readonly schema: string;
  readonly value: unknown;
}

/**
 * Every documented example with the schema it is documented for: the `examples` beside a body's `schema`,
 * the `example` beside a parameter's or header's, a schema's own `example`, and an AsyncAPI message's
 * `examples`, each a `payload` of the message's `payload` schema.
 */
const examplesIn = (node: unknown, pointer: string): Documented[] => {
  if (node === null || typeof node !== 'object') return [];
  const here = node as Json;
  const found: Documented[] = [];
  if (here.schema && typeof here.examples === 'object' && here.examples !== null) {
    for (const [name, example] of Object.entries(here.examples as Record<string, { value: unknown }>)) {
      found.push({
        pointer: `${pointer}/examples/${name}`,
        schema: `${pointer}/schema`,
        value: example.value,
      });
    }
  }
  if (here.payload && Array.isArray(here.examples)) {
    here.examples.forEach((example: { payload: unknown }, index) => {
      found.push({
        pointer: `${pointer}/examples/${index}/payload`,
        schema: `${pointer}/payload`,
        value: example.payload,
      });
    });
  }
  if (here.schema && 'example' in here) {
    found.push({ pointer: `${pointer}/example`, schema: `${pointer}/schema`, value: here.example });
  }
  if ((typeof here.type === 'string' || Array.isArray(here.allOf)) && 'example' in here) {
    found.push({ pointer: `${pointer}/example`, schema: pointer, value: here.example });
  }
  for (const [key, value] of Object.entries(here)) found.push(...examplesIn(value, child(pointer, key)));
  return found;
};

/** A document's patterns and examples, and how its schemas are found: the AsyncAPI one's are all in `components`. */
interface Described {
  readonly file: string;
  /** How many examples it documents at least: a walk that finds fewer has missed some. */
  readonly atLeast: number;
  readonly schemas: Json;
  readonly patterns: string[];
  readonly examples: Documented[];
}

const describedBy = (file: string, atLeast: number, whole: Json, schemas: Json): Described => ({
  file,
  atLeast,
  schemas,
  patterns: [...new Set(patternsIn(whole))],
  examples: examplesIn(whole, '#'),
});

const DOCUMENTS = [
  describedBy('docs/openapi.yaml', 20, document, document),
  // Each event's example, and its detail's schema examples.
  describedBy('docs/asyncapi.yaml', 3, eventsDocument, { components: eventsDocument.components }),
];

interface Reading {
  /** Each pattern the engine could not compile, with why. */
  readonly refused: Record<string, string>;
  /** Each test of a documented example's text against a pattern, and its result. */
  readonly tests: { readonly pattern: string; readonly text: string; readonly matched: boolean }[];
  /** The documented examples their schema refused, with why. */
  readonly failures: string[];
}

/** What validating every documented example of `described` asks of `compile`, and what it answers. */
const readWith = (described: Described, compile: (pattern: string) => RegExp): Reading => {
  const refused: Record<string, string> = {};
  for (const pattern of described.patterns) {
    try {
      compile(pattern);
    } catch (error) {
      refused[pattern] = (error as Error).message;
    }
  }
  const tests: Reading['tests'][number][] = [];
  const engine = Object.assign(
    (pattern: string) => {
      const regex = compile(pattern);
      return {
        test: (text: string) => {
          const matched = regex.test(text);
          tests.push({ pattern, text, matched });
          return matched;
        },
        toString: () => regex.toString(),
      };
    },
    { code: 'recording' },
  ) as PatternEngine;
  const contract = new Contract(described.schemas, described.file, engine);
  const failures = described.examples.flatMap(({ pointer, schema, value }) =>
    contract.validate(schema, value).map((problem) => `${pointer}: ${problem}`),
  );
  return { refused, tests, failures };
};

/** Python's `re` over `tests`' patterns and texts: each pattern it refuses, and each test it answers otherwise. */
const PYTHON = `
import json, re, sys
data = json.load(sys.stdin)
refused, answers = {}, []
for pattern in data["patterns"]:
    try:
        re.compile(pattern)
    except re.error as error:
        refused[pattern] = str(error)
for test in data["tests"]:
    if test["pattern"] not in refused:
        answers.append(re.search(test["pattern"], test["text"]) is not None)
print(json.dumps({"refused": refused, "answers": answers}))
`;

/** Python's `re` over `tests`: each pattern it refuses and its answer to each test; undefined without python3. */
const inPython = (
  patterns: readonly string[],
  tests: Reading['tests'],
): { refused: Record<string, string>; answers: boolean[] } | undefined => {
  const python = spawnSync('python3', ['-c', PYTHON], {
    input: JSON.stringify({ patterns, tests }),
    encoding: 'utf8',
  });
  if (python.error) return undefined;
  expect(python.status, python.stderr).toBe(0);
  return JSON.parse(python.stdout) as { refused: Record<string, string>; answers: boolean[] };
};

describe.each(DOCUMENTS)('every pattern of $file', (described) => {
  const withU = readWith(described, (pattern) => new RegExp(pattern, 'u'));

  it('is matched by each documented example of its schema, in JavaScript with the u flag (JSON Schema 2020-12)', () => {
    expect(described.examples.length).toBeGreaterThan(described.atLeast);
    expect(withU.refused).toEqual({});
    expect(withU.failures).toEqual([]);
    // Each pattern is read by at least one example, so no pattern goes untried.
    expect([...new Set(withU.tests.map(({ pattern }) => pattern))].sort()).toEqual(
      [...described.patterns].sort(),
    );
  });

  it('reads the same without the u flag: it compiles, and each documented example matches', () => {
    const withoutU = readWith(described, (pattern) => new RegExp(pattern));

    expect(withoutU.refused).toEqual({});
    expect(withoutU.failures).toEqual([]);
    expect(withoutU.tests).toEqual(withU.tests);
  });

  it("reads the same in Python's re: it compiles, and each documented example matches", (context) => {
    const python = inPython(described.patterns, withU.tests);
    if (!python) {
      context.skip('no python3 here to read the patterns with');
      return;
    }

    expect(python.refused).toEqual({});
    expect(python.answers).toEqual(withU.tests.map(({ matched }) => matched));
  });

  it("reads each documented example with a newline after it as JavaScript does, in Python's re, whose `$` alone also matches before a final newline", (context) => {
    const tests = withU.tests.map(({ pattern, text }) => {
      const ended = `${text}\n`;
      return { pattern, text: ended, matched: new RegExp(pattern, 'u').test(ended) };
    });
    const python = inPython(described.patterns, tests);
    if (!python) {
      context.skip('no python3 here to read the patterns with');
      return;
    }

    expect(python.refused).toEqual({});
    expect(python.answers).toEqual(tests.map(({ matched }) => matched));
  });
});

describe("the name's patterns in the document", () => {
  const namePatterns = (document.components as { schemas: { NewPet: Json } }).schemas.NewPet as {
    properties: { name: { allOf: { pattern: string }[] } };
  };
  const patterns = namePatterns.properties.name.allOf.map(({ pattern }) => pattern);
  /** Code points a name's rules turn on: controls, surrogates (lone or paired), marks, format characters. */
  const codePoint = fc.oneof(
    fc.integer({ min: 0, max: 0xa0 }),
    fc.integer({ min: 0xd7f0, max: 0xe010 }),
    fc.integer({ min: 0, max: 0x10ffff }),
  );
  const text = fc
    .array(codePoint, { maxLength: 20 })
    .map((codes) =>
      codes.map((code) => (code > 0xffff ? String.fromCodePoint(code) : String.fromCharCode(code))).join(''),
    );

  it("accept exactly the names the code accepts once a name has a visible character (the description's rule)", () => {
    fc.assert(
      fc.property(text, (tail) => {
        const name = `Rex${tail}`;
        const accepted = v.safeParse(NewPet, { name, categoryId: 1 }).success;
        for (const flags of ['u', '']) {
          expect(
            patterns.every((pattern) => new RegExp(pattern, flags).test(name)),
            `${JSON.stringify(name)} /${flags}`,
          ).toBe(accepted);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
