import { join } from 'node:path';
import { type BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';
import { keepOwnSourcesCommand } from '#infra/own-sources-map';

/** How every Lambda bundle is built, for the stack and the bench alike: the bench measures what deploys. */

export const NODE_TARGET = 'node24';

/** Bundled CommonJS (parts of the AWS SDK) requires built-ins: else `Dynamic require of "node:https" is not supported`. */
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
 * ESM builds of dependencies (an SDK bundle a third smaller); the SDK bundled (the version tested,
 * faster minified); a source map of own sources only (docs/decisions/0002-no-runtime-source-maps.md).
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

/** `esbuildOptions` as NodejsFunction props (never Docker); the infra tests hold the two equal. */
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
