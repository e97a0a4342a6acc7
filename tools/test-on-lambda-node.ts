import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { PROJECT_ROOT } from '#infra/project-root';
import { wantsHelp } from '#tools/command';
import { findLambdaNode, installLambdaNode, LAMBDA_NODE_MAJOR } from '../bench/lambda-node';

/** `npm run test:lambda-node`: unit, integration and http tests on Lambda's Node (bench/lambda-node), first
 * on PATH for every process they start; arguments go to vitest (`-- test/unit/cursor.test.ts`). */

if (wantsHelp(process.argv.slice(2))) {
  console.log(`Usage: npm run test:lambda-node [-- <vitest arguments>]
The unit, integration and http projects on Node ${LAMBDA_NODE_MAJOR}, the Lambda's (installed into bench/lambda-node/ on
the first run); arguments go to vitest, e.g. -- test/unit/cursor.test.ts.`);
  process.exit(0);
}

const failed = installLambdaNode((line) => console.log(line));
if (failed) {
  console.error(`Cannot run the tests on Node ${LAMBDA_NODE_MAJOR}: ${failed}`);
  process.exit(2);
}
const node = findLambdaNode();
if (!node.lambdaMajor) {
  console.error(`Cannot run the tests on Node ${LAMBDA_NODE_MAJOR}: ${node.line}`);
  process.exit(2);
}
/** Vitest's project name patterns: a project's parts are named after it. */
const PROJECTS = ['unit*', 'integration*', 'http*'];
console.log(
  `The unit, integration and http projects, each with its parts (${PROJECTS.join(', ')}), on Node ${node.version} (${node.path})`,
);
const projects = PROJECTS.flatMap((name) => ['--project', name]);
const result = spawnSync(
  node.path,
  [join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...projects, ...process.argv.slice(2)],
  {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: { ...process.env, PATH: [dirname(node.path), process.env.PATH].join(delimiter) },
  },
);
process.exit(result.status ?? 1);
