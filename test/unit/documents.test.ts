import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '#functions/operations';
import { PROJECT_ROOT } from '#infra/project-root';
import { corsAllowedHeaders, corsExposedHeaders } from '#shared/http/gateway-behaviour';

/**
 * The project's documents point at each other, by link, by path and by section ("docs/operate.md,
 * "Plans""). These tests keep every such pointer true when a section moves, keep every pointer
 * inside the repository, and keep the packages table whole.
 */

const markdownIn = (folder: string): string[] =>
  readdirSync(join(PROJECT_ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownIn(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });

const DOCUMENTS = [
  ...['README.md', 'BENCHMARKS.md', 'CHANGELOG.md'].filter((name) => existsSync(join(PROJECT_ROOT, name))),
  ...markdownIn('docs'),
];

const read = (document: string) => readFileSync(join(PROJECT_ROOT, document), 'utf8');

/** A path as a document writes it: relative to the document, or else to the repository's root. */
const locate = (document: string, target: string): string | undefined => {
  const name = target === 'README' ? 'README.md' : target;
  for (const base of [join(PROJECT_ROOT, dirname(document)), PROJECT_ROOT]) {
    const path = resolve(base, name);
    if (existsSync(path)) return relative(PROJECT_ROOT, path);
  }
  return undefined;
};

/** The titles a section reference may name: headings, and bold terms that open a paragraph or item. */
const sectionsOf = (text: string): Set<string> =>
  new Set([
    ...[...text.matchAll(/^#+ (.+)$/gm)].map(([, title]) => title?.trim() ?? ''),
    ...[...text.matchAll(/^(?:- )?\*\*([^*]+)\*\*/gm)].map(([, term]) => term?.replace(/[.:]$/, '') ?? ''),
  ]);

/** Prose with links reduced to their targets and lines joined, as a reader follows it. */
const prose = (text: string) =>
  text
    .replace(/```[\s\S]*?```/g, '')
    .replace(/\[[^\]]*\]\(([^)]+)\)/g, '$1')
    .replace(/\s+/g, ' ');

describe.each(DOCUMENTS)('%s', (document) => {
  const text = read(document);

  it('links only to files of the repository that exist', () => {
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map(([, target]) => target?.split('#')[0] ?? '')
      .filter((target) => target !== '' && !/^[a-z]+:/.test(target));

    for (const target of targets) {
      const path = resolve(PROJECT_ROOT, dirname(document), target);
      expect(relative(PROJECT_ROOT, path).startsWith('..'), `${target} leaves the repository`).toBe(false);
      expect(existsSync(path), `${target} does not exist`).toBe(true);
    }
  });

  it('names only documents that exist, and no place outside the repository', () => {
    const named = [...prose(text).matchAll(/(?<![\w/.-])((?:\.\.\/|[\w-]+\/)*[\w-]+\.md)\b/g)].map(
      ([, path]) => path as string,
    );

    expect(text, 'a path of the machine').not.toMatch(/(?<![\w./])\/work\//);
    for (const path of named) expect(locate(document, path), path).toBeDefined();
  });

  it('names only sections that exist, in this document and in the others', () => {
    const references = [
      ...prose(text).matchAll(/(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md|README|above|below)\)?,? \(?"([^"]+)"/g),
    ].map(([, where, title]) => ({ where: where as string, title: title as string }));

    for (const { where, title } of references) {
      const target = where === 'above' || where === 'below' ? document : locate(document, where);
      expect(target, where).toBeDefined();
      expect(sectionsOf(read(target as string)), `${where}, "${title}"`).toContain(title);
    }
  });
});

describe('docs/development.md', () => {
  it('gives every package of package.json its row and reason', () => {
    const { dependencies = {}, devDependencies = {} } = JSON.parse(read('package.json')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const text = read('docs/development.md');
    const table = text.slice(text.indexOf('\n## Packages, and why each\n'));

    expect(table.length).toBeLessThan(text.length);
    for (const name of [...Object.keys(dependencies), ...Object.keys(devDependencies)]) {
      expect(table, name).toMatch(
        new RegExp(`^\\|[^|\\n]*\`${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\``, 'm'),
      );
    }
  });
});

/** `a`, `b` and `c`, as the guide lists names. */
const listed = (names: readonly string[]): string => {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
};

describe('docs/guide.md, "From a web page (CORS)"', () => {
  const section = prose(
    read('docs/guide.md').split('\n## From a web page (CORS)')[1]?.split('\n## ')[0] ?? '',
  );

  it('grants the methods of each path without listing them (a new operation changes them), and names the request headers and the readable headers', () => {
    expect(section).toContain(
      'allowing the methods of the path (every method the API reference lists for it',
    );
    expect(section).not.toMatch(/`(GET|POST|PUT|PATCH|DELETE)` on `\//);
    expect(section).toContain(`the request headers ${listed(corsAllowedHeaders(CONTRACTS))},`);
    expect(section).toContain(`read ${listed(corsExposedHeaders(CONTRACTS))}:`);
  });
});
