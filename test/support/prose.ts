import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';

/**
 * The README and docs/*.md: the documents whose figures and lists are the system's (the decision
 * records keep those of their day, and the changelog its history).
 */
export const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(PROJECT_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** A line that a generator's table follows: `<!-- name -->` or `<!-- name: made by … -->`. */
const MARKER = /^<!-- [\w:-]+(?:: [^>]+)? -->$/;

/**
 * A document's lines, without the tables a tool generates below a marker (a test remakes those)
 * and without code blocks, fenced where they begin, indented or not.
 */
export const proseLines = (text: string): string[] => {
  const lines: string[] = [];
  let code = false;
  let generated = false;
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) code = !code;
    else if (MARKER.test(line)) generated = true;
    else if (!code && !(generated && line.startsWith('|'))) {
      generated = false;
      lines.push(line);
    }
  }
  return lines;
};
