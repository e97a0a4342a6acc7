import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { kebabName, moduleOf } from '#shared/composition/function';

/** Where the Lambda entries are written (gitignored): they are made from the list, never by hand. */
export const ENTRIES_DIR = '.build/entries';

/** Its own module only, so a bundle never carries another function. */
export const entrySource = (name: string): string =>
  [
    `// Made by infra/lambda-entries.ts from ${moduleOf(name)}: do not edit.`,
    `import { ${name}Function } from '#functions/${kebabName(name)}';`,
    `import { fromEnvironment } from '#shared/composition/environment';`,
    '',
    `export const handler = fromEnvironment(${name}Function);`,
    '',
  ].join('\n');

/** Written whole then renamed, so a build reading it while another process writes never sees half. */
export const lambdaEntry = ({ name }: { readonly name: string }): string => {
  const entry = join(ENTRIES_DIR, `${kebabName(name)}.ts`);
  const file = join(PROJECT_ROOT, entry);
  const source = entrySource(name);
  if (!existsSync(file) || readFileSync(file, 'utf8') !== source) {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, source);
    renameSync(temporary, file);
  }
  return entry;
};
