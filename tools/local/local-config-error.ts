/**
 * A setting of the local server that cannot work, or a setup problem of this machine: its message
 * names the variable to change or what to install. Its own module, free of project imports, so
 * that `npm start` can recognise it even when another source file does not compile.
 */
export class LocalConfigError extends Error {
  override readonly name: string = 'LocalConfigError';
}
