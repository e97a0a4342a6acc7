import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalConfigError } from '#tools/local/local-config-error';

/** Why `npm start` could not start, in one line; imports one project file only, so it works when others break. */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const shown = (file: string): string => {
  const path = file.startsWith('file://') ? fileURLToPath(file) : file;
  const inProject = relative(ROOT, path);
  return inProject.startsWith('..') ? path : inProject;
};

/** One message of esbuild (what tsx compiles with). */
interface CompileMessage {
  readonly text: string;
  readonly location: { readonly file: string; readonly line: number; readonly column: number } | null;
}

/** esbuild's `errors`, or from Node's module loader (tsx's thread) its message: `file:line:column: ERROR: text`. */
const compileMessages = (error: unknown): CompileMessage[] | undefined => {
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors) && errors.length > 0) {
    return errors.every((message) => typeof (message as CompileMessage | null)?.text === 'string')
      ? (errors as CompileMessage[])
      : undefined;
  }
  if (!(error instanceof Error) || error.name !== 'TransformError') return undefined;
  const located = [...error.message.matchAll(/^(.+):(\d+):(\d+): ERROR: (.*)$/gm)].map(
    ([, file = '', line, column, text = '']): CompileMessage => ({
      text,
      location: { file, line: Number(line), column: Number(column) },
    }),
  );
  return located.length > 0 ? located : [{ text: error.message.split('\n')[0] ?? '', location: null }];
};

/** The first place in a source file (not a dependency's, nor Node's own) a stack names, as `file:line[:column]`. */
const sourceLocation = (stack: string): string | undefined => {
  for (const match of stack.matchAll(/(?<=^|[\s(])(file:\/\/[^\s)]+|\/[^\s():]+):(\d+)(?::(\d+))?/gm)) {
    const [, file = '', line, column] = match;
    if (file.includes('/node_modules/')) continue;
    return `${shown(file)}:${line}${column ? `:${column}` : ''}`;
  }
  return undefined;
};

export const describeStartFailure = (error: unknown): string => {
  if (error instanceof LocalConfigError) return error.message;
  const messages = compileMessages(error);
  if (messages) {
    const [first, ...more] = messages;
    // esbuild counts columns from 0; editors, from 1.
    const where = first?.location
      ? `${shown(first.location.file)}:${first.location.line}:${first.location.column + 1}`
      : 'a source file';
    const others = more.length > 0 ? ` (and ${more.length} more error${more.length === 1 ? '' : 's'})` : '';
    return `${where} does not compile: ${first?.text}${others}`;
  }
  if (!(error instanceof Error)) return String(error);
  const firstLine = error.message.split('\n')[0] ?? '';
  // A mistake in the code (an import that names nothing, a call of undefined) says where it is.
  const inCode =
    error instanceof SyntaxError || error instanceof ReferenceError || error instanceof TypeError;
  const where = inCode ? sourceLocation(error.stack ?? '') : undefined;
  return where ? `${where}: ${error.name}: ${firstLine}` : firstLine;
};
