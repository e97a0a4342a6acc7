import { vi } from 'vitest';

/**
 * What the process writes to stdout and stderr while `run` runs (Powertools writes errors to
 * stderr), kept from the terminal, and what `run` returned; the streams are given back after.
 */
export const writtenDuring = async <T>(run: () => Promise<T>): Promise<{ result: T; written: string }> => {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    }),
  );
  try {
    return { result: await run(), written: chunks.join('') };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
};

/** The JSON lines (Powertools' log lines, EMF) of what was written. */
export const jsonLines = <T = Record<string, unknown>>(written: string): T[] =>
  written
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as T);
