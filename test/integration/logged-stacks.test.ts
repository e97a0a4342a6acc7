import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizerFunction } from '#functions/authorizer';
import { getPetFunction } from '#functions/get-pet';
import { esbuildOptions } from '#infra/bundling';
import { lambdaEntry } from '#infra/lambda-entries';
import { keepOwnSources } from '#infra/own-sources-map';
import { PROJECT_ROOT } from '#infra/project-root';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { findLambdaNode, installLambdaNode } from '../../bench/lambda-node';
import { benchTargets, childEnvironment, requestTo } from '../../bench/targets';
import { createTestTables } from '../support/tables';

/**
 * A logged stack as the logs of a deployed function hold it: the bundle built as the stack builds
 * it (index.mjs and its map of the project's sources), run as the stack runs it (its environment,
 * no runtime source maps) on the Lambda's Node from bench/lambda-node: getPet reading an item that
 * is not a pet, and the authorizer failing.
 */

const THROWN_AT = 'shared/adapters/dynamodb/stored-items.ts';

interface LoggedError {
  readonly name: string;
  readonly location: string;
  readonly stack: string;
}

let dir: string;
/** What getPet answered and logged, and the authorizer. */
let getPet: ReturnType<typeof invoke>;
let authorizer: ReturnType<typeof invoke>;
let child: ReturnType<typeof findLambdaNode>;

/**
 * What `name`'s bundle answers `event` in a process of its own (its status, or `threw`), and the
 * error on the ERROR line it logs as CloudWatch gets it: both streams (Powertools writes errors to
 * stderr).
 */
const invoke = (name: string, event: unknown, env: NodeJS.ProcessEnv) => {
  // The request arrives once the function has started (its deadline counts from its arrival).
  const script = `const { handler } = await import(${JSON.stringify(join(dir, name, 'index.mjs'))});
    const event = ${JSON.stringify(event)};
    if (event.requestContext) event.requestContext.requestTimeEpoch = Date.now();
    const context = { functionName: '${name}', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 10000 };
    const answered = await handler(event, context).then((answer) => answer.statusCode, () => 'threw');
    process.stdout.write(JSON.stringify({ answered }) + '\\n');
    process.exit(0);`;
  const run = spawnSync(child.path, ['--input-type=module', '--eval', script], { env, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  const lines = `${run.stdout}${run.stderr}`.split('\n');
  const logged = lines.find((text) => text.includes('"level":"ERROR"'));
  const { answered } = JSON.parse(lines.find((text) => text.startsWith('{"answered"')) ?? '{}');
  return { answered, error: JSON.parse(logged ?? '{}').error as LoggedError };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logged-stacks-'));
  await Promise.all(
    [getPetFunction, authorizerFunction].map(async (root) => {
      const outfile = join(dir, root.name, 'index.mjs');
      await build({
        ...esbuildOptions(join(PROJECT_ROOT, lambdaEntry(root)), outfile),
        absWorkingDir: PROJECT_ROOT,
      });
      keepOwnSources(`${outfile}.map`);
    }),
  );
  const tables = await createTestTables('logged-stacks');
  const raw = createLocalClient(tables.endpoint);
  await raw.send(
    new PutItemCommand({
      TableName: tables.names.pets,
      Item: { id: { N: '1' }, name: { N: '5' }, status: { S: 'zombie' } },
    }),
  );
  raw.destroy();
  installLambdaNode(() => undefined);
  child = findLambdaNode();
  getPet = invoke(
    getPetFunction.name,
    requestTo(getPetFunction.operation),
    childEnvironment(getPetFunction, tables.endpoint, tables.names),
  );
  // The authorizer, its key table missing: DynamoDB refuses the GetItem.
  const target = benchTargets('a-key').find(
    (candidate) => candidate.entry === lambdaEntry(authorizerFunction),
  );
  authorizer = invoke(
    authorizerFunction.name,
    target?.event,
    childEnvironment({ ...authorizerFunction, ...target }, tables.endpoint, {
      ...tables.names,
      apiKeys: 'no-such-table',
    }),
  );
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a 500's logged stack", () => {
  it('is logged by the bundle as it runs, on the Lambda runtime’s Node where one is pinned', () => {
    expect(getPet.answered).toBe(500);
    expect(getPet.error).toMatchObject({ name: 'InvalidStoredItemError' });
    expect(child.lambdaMajor || !child.line.includes('pins no Node binary')).toBe(true);
  });

  it("names the project's source file and the line that threw, and the project's frames down to the handler", () => {
    const [, line = '0'] = new RegExp(`\\(${THROWN_AT}:(\\d+):\\d+\\)`).exec(getPet.error.stack) ?? [];
    const source = readFileSync(join(PROJECT_ROOT, THROWN_AT), 'utf8').split('\n');

    expect(source[Number(line) - 1]).toContain('new InvalidStoredItemError(');
    expect(getPet.error.stack).toContain(' functions/get-pet.ts:');
    // Only the dependencies' frames (middy's) keep their place in the bundle.
    expect(getPet.error.stack.match(/index\.mjs:\d+:\d+/g)?.length ?? 0).toBeLessThan(
      getPet.error.stack.match(/\.ts:\d+:\d+/g)?.length ?? 0,
    );
  });

  it('gives the error the location of the line that threw, which Powertools takes from the stack', () => {
    expect(getPet.error.location).toMatch(new RegExp(`^${THROWN_AT}:\\d+$`));
    expect(getPet.error.stack).toContain(`(${getPet.error.location}:`);
  });
});

describe("the authorizer's logged failure", () => {
  it("names the project's source files of its frames, those of the SDK that threw keeping their place in the bundle", () => {
    expect(authorizer.answered).toBe('threw');
    expect(authorizer.error).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(authorizer.error.stack).toMatch(
      /\(shared\/adapters\/dynamodb\/dynamodb-api-key-repository\.ts:\d+:\d+\)/,
    );
    expect(authorizer.error.location).toMatch(/index\.mjs:\d+$/);
  });
});
