import { join } from 'node:path';
import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { keepOwnSourcesCommand } from '#infra/own-sources-map';

/**
 * How every Lambda bundle is built, for the stack (`nodejsBundling`) and the bench alike, so a
 * bundle measured locally is the kind that is deployed.
 */

/** Node.js version of the Lambda runtime; the bundle targets exactly it. */
export const NODE_TARGET = 'node24';

/**
 * An ESM bundle has no `require`, yet CommonJS dependencies bundled into it (parts of the AWS SDK)
 * still call it for Node built-ins: without this banner they fail at import with
 * `Dynamic require of "node:https" is not supported`.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

/** Modules esbuild resolves to a smaller one of the project's (infra/bundling-shims/ says why, each). */
export const BUNDLING_ALIASES: Readonly<Record<string, string>> = {
  'node:stream/web': './infra/bundling-shims/stream-web.ts',
  '@aws-sdk/credential-provider-node': './infra/bundling-shims/credential-provider-node.ts',
  'node:http': './infra/bundling-shims/http.ts',
  'node:zlib': './infra/bundling-shims/zlib.ts',
};

/**
 * esbuild options for one Lambda entry.
 *
 * - `mainFields: ['module', 'main']` picks dependencies' ESM builds: an SDK bundle a third smaller.
 * - The AWS SDK is bundled (`external: []`): the version tested, and minified it loads faster.
 * - A source map beside the bundle, cut down to the project's own sources (`keepOwnSources`), read
 *   only when a function logs an error (docs/decisions/0002-no-runtime-source-maps.md).
 * - `node:stream/web` replaced by infra/bundling-shims/stream-web.ts: the rest costs every cold start.
 * - The SDK's default credential chain replaced by its first link, the environment's credentials,
 *   the only one Lambda uses (infra/bundling-shims/credential-provider-node.ts).
 * - `node:http` and `node:zlib` taken without what an ESM import of them loads besides
 *   (infra/bundling-shims/http.ts, zlib.ts): Node's fetch, HTTP/2, workers and compression streams.
 */
export const esbuildOptions = (entry: string, outfile: string) =>
  ({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    external: [],
    alias: BUNDLING_ALIASES,
    logLevel: 'warning',
  }) satisfies BuildOptions;

/**
 * The same options as NodejsFunction `bundling` props (never Docker), then the map cut down. The
 * infra tests hold NodejsFunction's esbuild arguments to exactly `esbuildOptions`, so an option
 * added to one build only fails them.
 */
export const nodejsBundling = (): BundlingOptions => {
  const options = esbuildOptions('<entry>', '<outfile>');
  return {
    format: OutputFormat.ESM,
    target: options.target,
    mainFields: [...options.mainFields],
    banner: options.banner.js,
    minify: options.minify,
    sourceMap: options.sourcemap,
    sourcesContent: options.sourcesContent,
    // An explicit empty list is what makes NodejsFunction bundle the AWS SDK too.
    externalModules: [...options.external],
    esbuildArgs: { '--alias': Object.entries(options.alias).map(([from, to]) => `${from}=${to}`) },
    logLevel: LogLevel.WARNING,
    forceDockerBundling: false,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir, outputDir) => [keepOwnSourcesCommand(join(outputDir, 'index.mjs.map'))],
    },
  };
};
