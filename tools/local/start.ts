import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describeStartFailure } from '#tools/local/start-failure';

/**
 * `npm start`'s entry: runs the server (tools/local/server.ts), and when it cannot start, says why
 * in one line, never a stack trace (with POWERTOOLS_LOG_LEVEL=DEBUG, the error in full as well).
 * The server's modules are loaded from here, not imported above, so that a source file that does
 * not compile is reported like any other failure: its file, line and message; and so that a
 * Node.js older than package.json's `engines` (npm only warns) is refused before any of them loads.
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
  const { runServer } = await import('#tools/local/server');
  await runServer();
} catch (error) {
  console.error(`Cannot start: ${describeStartFailure(error)}`);
  if (process.env.POWERTOOLS_LOG_LEVEL?.toUpperCase() === 'DEBUG') console.error(error);
  process.exit(1);
}
