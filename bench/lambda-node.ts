import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { NODE_TARGET } from '#infra/bundling';
import { PROJECT_ROOT } from '#infra/project-root';

/** The children's Node: Lambda's major pinned in bench/lambda-node/ (off scripts' PATH), else this one. */

export const LAMBDA_NODE_MAJOR = Number(/^node(\d+)$/.exec(NODE_TARGET)?.[1]);

type Site = { readonly dir?: string; readonly platform?: string; readonly arch?: string };
type PackageJson = { version?: string; packages?: Record<string, { version?: string }> } | undefined;
const readJson = (file: string): PackageJson =>
  existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;

const siteOf = ({ dir = join(PROJECT_ROOT, 'bench', 'lambda-node'), ...site }: Site) => {
  const [platform, arch] = [site.platform ?? process.platform, site.arch ?? process.arch];
  const name = `node-${platform}-${arch}`;
  const packageDir = join(dir, 'node_modules', name);
  return {
    dir,
    platform: `${platform} ${arch}`,
    name,
    binary: join(packageDir, 'bin', 'node'),
    pinned: readJson(join(dir, 'package-lock.json'))?.packages?.[`node_modules/${name}`]?.version,
    installed: () => readJson(join(packageDir, 'package.json'))?.version,
  };
};

const majorOf = (version: string): number => Number(/^v?(\d+)\./.exec(version)?.[1]);
const shown = (path: string): string =>
  relative(PROJECT_ROOT, path).startsWith('..') ? path : relative(PROJECT_ROOT, path);

const fallback = (reason: string) => {
  const lambdaMajor = majorOf(process.version) === LAMBDA_NODE_MAJOR;
  const fit = lambdaMajor
    ? `that is the Lambda's major (${LAMBDA_NODE_MAJOR}) all the same`
    : `NOT the Lambda's Node ${LAMBDA_NODE_MAJOR}, so cold-start and warm figures are Node ${majorOf(process.version)}'s`;
  return {
    path: process.execPath,
    version: process.version,
    lambdaMajor,
    line: `children on this process's Node ${process.version} (${process.execPath}) because ${reason}; ${fit}`,
  };
};

/** The Node the children run on (`version` as `v24.21.0`), and in `line` which one and why. */
export const findLambdaNode = (where: Site = {}) => {
  const site = siteOf(where);
  if (!site.pinned) return fallback(`${shown(site.dir)} pins no Node binary for ${site.platform}`);
  if (!existsSync(site.binary)) {
    return fallback(`${site.name} is not installed in ${shown(site.dir)} (npm run bench installs it)`);
  }
  const probe = spawnSync(site.binary, ['--version'], { encoding: 'utf8', env: {} });
  const version = probe.stdout?.trim() ?? '';
  if (probe.status !== 0 || majorOf(version) !== LAMBDA_NODE_MAJOR) {
    return fallback(
      `${shown(site.binary)} is not a working Node ${LAMBDA_NODE_MAJOR} (${version || probe.stderr})`,
    );
  }
  const line = `children on Node ${version} (${shown(site.binary)}, the Lambda runtime's major, from the npm registry)`;
  return { path: site.binary, version, lambdaMajor: true, line };
};

/** Installs the pinned binary into bench/lambda-node (about 5 s, once); returns what went wrong, if anything. */
export const installLambdaNode = (progress: (line: string) => void): string | undefined => {
  const site = siteOf({});
  if (!site.pinned || site.installed() === site.pinned) return undefined;
  progress(`installing ${site.name}@${site.pinned} into bench/lambda-node (npm ci there, once)`);
  // npm's own CLI when run through `npm run`, so the same npm installs it; else npm on PATH.
  const npm = process.env.npm_execpath;
  const [command, prefix] = npm?.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
  const result = spawnSync(command, [...prefix, 'ci', '--prefix', site.dir, '--no-audit', '--no-fund'], {
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  // npm passes over an optional dependency it cannot fetch and still succeeds: check.
  if (result.status === 0 && site.installed() === site.pinned) return undefined;
  return `npm ci --prefix bench/lambda-node left ${site.name}@${site.pinned} out: ${(result.stderr || result.error?.message || '').trim().split('\n').pop()}`;
};
