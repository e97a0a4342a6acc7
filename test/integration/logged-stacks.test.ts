import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPetRoot } from '#functions/get-pet/root';
import { esbuildOptions } from '#infra/bundling';
import { PROJECT_ROOT } from '#infra/project-root';
import { createLocalClient } from '#shared/adapters/dynamodb/client';
import { findLambdaNode, installLambdaNode } from '../../bench/lambda-node';
import { childEnvironment, requestTo } from '../../bench/targets';
import { createTestTables } from '../support/tables';

/**
 * A 500's stack as the logs of a deployed function hold it, and back in the sources: getPet's
 * bundle built as the stack builds it (index.mjs and its map), run as the stack runs it (its
 * environment, no runtime source maps) on the Lambda's Node from bench/lambda-node, reading an
 * item that is not a pet; then `npm run stack` with the build's map.
 */

const THROWN_AT = 'shared/adapters/dynamodb/stored-items.ts';

let dir: string;
let logged: string;
let child: ReturnType<typeof findLambdaNode>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'logged-stacks-'));
  await build({
    ...esbuildOptions(join(PROJECT_ROOT, getPetRoot.entry), join(dir, 'index.mjs')),
    absWorkingDir: PROJECT_ROOT,
  });
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
  const event = requestTo(getPetRoot.operation);
  // The request arrives once the function has started (its deadline counts from its arrival).
  const invoke = `const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    const event = ${JSON.stringify(event)};
    event.requestContext.requestTimeEpoch = Date.now();
    const answer = await handler(event, { functionName: 'get-pet', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 10000 });
    if (answer.statusCode !== 500) throw new Error('answered ' + answer.statusCode);
    process.exit(0);`;
  const run = spawnSync(child.path, ['--input-type=module', '--eval', invoke], {
    env: childEnvironment({ name: 'get-pet', tables: getPetRoot.tables }, tables.endpoint, tables.names),
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  // What CloudWatch gets: both streams (Powertools writes errors to stderr).
  logged = `${run.stdout}${run.stderr}`;
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a 500's logged stack", () => {
  it('is logged from the bundle as it runs, on the Lambda runtime’s Node where one is pinned', () => {
    const line = logged.split('\n').find((text) => text.includes('"level":"ERROR"')) ?? '';

    expect(JSON.parse(line).error).toMatchObject({ name: 'InvalidStoredItemError' });
    expect(line).toMatch(/index\.mjs:\d+:\d+/);
    expect(line).not.toContain('.ts:');
    expect(child.lambdaMajor || !child.line.includes('pins no Node binary')).toBe(true);
  });

  /** `npm run stack -- <what> <log file>` on the logged lines. */
  const stack = (what: string) => {
    writeFileSync(join(dir, 'log.json'), logged);
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'tools/stack/stack.ts', what, join(dir, 'log.json')],
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
      },
    );
    expect(run.status, run.stderr).toBe(0);
    return run.stdout;
  };

  it("names the project's source file and the line that threw, through npm run stack and the build's map", () => {
    const mapped = stack(join(dir, 'index.mjs.map'));

    const [, line = '0'] = new RegExp(`${THROWN_AT}:(\\d+):\\d+`).exec(mapped) ?? [];
    const source = readFileSync(join(PROJECT_ROOT, THROWN_AT), 'utf8').split('\n');
    expect(source[Number(line) - 1]).toContain('new InvalidStoredItemError(');
    expect(mapped).toContain('functions/get-pet/handler.ts:');
    expect(mapped).not.toMatch(/index\.mjs:\d+:\d+/);
  }, 30_000);

  it("is mapped the same from the function's name, by a build of the checkout", () => {
    expect(stack('get-pet')).toBe(stack(join(dir, 'index.mjs.map')));
  }, 60_000);
});
