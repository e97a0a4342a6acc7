import type { BuildOptions } from 'esbuild';

/**
 * How every Lambda bundle is built, for the stack and the bench alike: the bench measures what
 * deploys. No CDK here (the stack maps these to NodejsFunction props in infra/constructs/api-function.ts):
 * the bench and the tests that build a bundle load esbuild only.
 */

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
