import { describeStartFailure } from '#tools/local/start-failure';

/**
 * `npm run dev`'s entry: runs tools/local/dev-server.ts, and when it cannot start, says why in one
 * line (a source file that does not compile: its file, line and message), as `npm start` does.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

try {
  const { runDevServer } = await import('#tools/local/dev-server');
  await runDevServer();
} catch (error) {
  console.error(`Cannot start: ${describeStartFailure(error)}`);
  process.exit(1);
}
