import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describeStartFailure } from '#tools/local/start-failure';

/**
 * The entry of `npm start` (tools/local/server.ts) and, with `--dev`, of `npm run dev`
 * (tools/local/dev-server.ts): when the server cannot start, it says why in one line, never a stack
 * trace (with POWERTOOLS_LOG_LEVEL=DEBUG, the error in full as well). The server's modules are
 * loaded from here, so that a source file that does not compile is reported like any other
 * failure (its file, line and message), and a Node.js older than package.json's `engines` (npm
 * only warns) is refused before any of them loads.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { engines } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
if (!semver.satisfies(process.versions.node, engines.node)) {
  console.error(
    `Cannot start: Node.js ${process.versions.node} is older than this project needs (${engines.node}, package.json "engines"): install Node.js ${semver.minVersion(engines.node)} or newer.`,
  );
  process.exit(1);
}

try {
  if (process.argv.includes('--dev')) await (await import('#tools/local/dev-server')).runDevServer();
  else await (await import('#tools/local/server')).runServer();
} catch (error) {
  console.error(`Cannot start: ${describeStartFailure(error)}`);
  if (process.env.POWERTOOLS_LOG_LEVEL?.toUpperCase() === 'DEBUG') console.error(error);
  process.exit(1);
}
