import { readFileSync } from 'node:fs';
import semver from 'semver';
import { wantsHelp } from '#tools/command';
import { describeStartFailure } from '#tools/local/start-failure';

/**
 * `npm start` (`--dev`: `npm run dev`): a failed start is one line (the error too with POWERTOOLS_LOG_LEVEL=DEBUG).
 * Modules load from here, so a compile error names its file and line, after the `engines` check (npm only warns).
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

if (wantsHelp(process.argv.slice(2))) {
  console.log((await import('#tools/local/settings')).localUsage());
  process.exit(0);
}

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
