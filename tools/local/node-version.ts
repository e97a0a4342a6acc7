import { readFileSync } from 'node:fs';
import semver from 'semver';

/**
 * Whether this Node.js is one the local tools run on, as package.json's `engines` says (npm only
 * warns): the one sentence to stop with when it is older, or undefined. Imports nothing newer
 * Node.js would be needed for, so `npm start` and `npm run dev` check it before loading the rest.
 */
export const nodeTooOld = (version: string = process.versions.node): string | undefined => {
  const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  };
  if (semver.satisfies(version, engines.node)) return undefined;
  return `Node.js ${version} is older than this project needs (${engines.node}, package.json "engines"): install Node.js ${semver.minVersion(engines.node)} or newer`;
};
