import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';

/**
 * `text` in `file`, written beside it, synced, then renamed into place: whoever reads the file,
 * a restart after `kill -9` included, finds the old content or the new one, never part of it.
 */
export const writeFileAtomically = (file: string, text: string): void => {
  const draft = `${file}.${process.pid}.tmp`;
  const fd = openSync(draft, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(draft, file);
};
