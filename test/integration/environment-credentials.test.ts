import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPetFunction } from '#functions/get-pet';
import { esbuildOptions } from '#infra/bundling';
import { lambdaEntry } from '#infra/lambda-entries';
import { PROJECT_ROOT } from '#infra/project-root';
import { ENV } from '#shared/config';
import { findLambdaNode, installLambdaNode } from '../../bench/lambda-node';
import { childEnvironment, requestTo } from '../../bench/targets';
import { FaultProxy } from '../support/fault-proxy';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * A function's bundle, built as the stack builds it (its credential chain cut to the environment's
 * credentials, infra/bundling-shims/credential-provider-node.ts), run as Lambda runs it on the
 * Lambda's Node from bench/lambda-node: no DynamoDB endpoint or credentials of the project's own,
 * only what Lambda puts in the environment. DynamoDB Local stands in for DynamoDB, reached through
 * the SDK's own endpoint variable, behind a proxy that reads each request's signature.
 */

const ACCESS_KEY_ID = 'AKIDFROMENVIRONMENT1';

let dir: string;
let tables: TestTables;
let proxy: FaultProxy;
let child: ReturnType<typeof findLambdaNode>;

/** getPet's bundle answering its request in a process of its own: its status, and what it logged. */
const runGetPet = async (env: Record<string, string>) => {
  const script = `const { handler } = await import(${JSON.stringify(join(dir, 'index.mjs'))});
    const event = ${JSON.stringify(requestTo(getPetFunction.operation))};
    event.requestContext.requestTimeEpoch = Date.now();
    const context = { functionName: 'getPet', awsRequestId: 'r-1', getRemainingTimeInMillis: () => 10000 };
    const answer = await handler(event, context);
    const modules = process.moduleLoadList;
    process.stdout.write(JSON.stringify({ answered: answer.statusCode, modules }) + '\\n');
    process.exit(0);`;
  // Not spawnSync: the proxy in this process must keep passing bytes meanwhile.
  const run = spawn(child.path, ['--input-type=module', '--eval', script], { env });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  run.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(run, 'close');
  const lines = output.split('\n');
  const { answered, modules = [] }: { answered?: unknown; modules?: string[] } = JSON.parse(
    lines.find((line) => line.startsWith('{"answered"')) ?? '{}',
  );
  const error = lines.find((line) => line.includes('"level":"ERROR"'));
  return {
    code,
    answered,
    modules,
    error: error === undefined ? undefined : JSON.parse(error).error,
    output,
  };
};

/** getPet's environment as Lambda gives it, DynamoDB being DynamoDB Local behind the proxy. */
const lambdaEnvironment = (): Record<string, string> => {
  const {
    [ENV.dynamoDbEndpoint]: _local,
    AWS_EC2_METADATA_DISABLED: _off,
    ...env
  } = childEnvironment(getPetFunction, tables.endpoint, tables.names);
  // No shared files to fall back on, whatever this machine holds.
  return { ...env, HOME: dir, AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'environment-credentials-'));
  await build({
    ...esbuildOptions(join(PROJECT_ROOT, lambdaEntry(getPetFunction)), join(dir, 'index.mjs')),
    absWorkingDir: PROJECT_ROOT,
  });
  tables = await createTestTables('environment-credentials');
  proxy = await FaultProxy.start(tables.endpoint);
  installLambdaNode(() => undefined);
  child = findLambdaNode();
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

const LAMBDA_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: 'secret-from-the-environment',
  AWS_SESSION_TOKEN: 'session-token-from-the-environment',
};

/** Node's modules one HTTP/1.1 request to DynamoDB never needs (what an ESM import of `node:http` or `node:zlib`, or the SDK's other credential providers, load). */
const NEVER_NEEDED = [
  'NativeModule internal/deps/undici/undici',
  'NativeModule http2',
  'NativeModule worker_threads',
  'NativeModule zlib',
  'NativeModule child_process',
  'NativeModule dgram',
  'NativeModule assert',
];

describe("a bundled function's credentials", () => {
  it('are the ones in its environment: its DynamoDB request is signed with their access key id', async () => {
    proxy.clearAnswerFaults();

    const run = await runGetPet({ ...lambdaEnvironment(), ...LAMBDA_CREDENTIALS });

    expect(run.code, run.output).toBe(0);
    // No such pet: DynamoDB Local answered the GetItem it was sent.
    expect(run.answered, run.output).toBe(404);
    expect(proxy.seen).toEqual([
      { operation: 'GetItem', table: tables.names.pets, accessKeyId: ACCESS_KEY_ID, faulted: false },
    ]);
    expect(child.lambdaMajor || !child.line.includes('pins no Node binary')).toBe(true);
  }, 60_000);

  it("are missing outside Lambda without the variables: one clear error, the environment provider's, nothing sent, no metadata service asked", async () => {
    proxy.clearAnswerFaults();
    // An instance metadata service that takes connections and never answers: the SDK's whole
    // chain would wait on it for its timeouts.
    const connections: Socket[] = [];
    const metadata = createServer((socket) => connections.push(socket));
    metadata.listen(0, '127.0.0.1');
    await once(metadata, 'listening');
    const { port } = metadata.address() as AddressInfo;

    const run = await runGetPet({
      ...lambdaEnvironment(),
      AWS_EC2_METADATA_SERVICE_ENDPOINT: `http://127.0.0.1:${port}`,
    }).finally(() => {
      for (const socket of connections) socket.destroy();
      metadata.close();
    });

    expect(connections).toHaveLength(0);
    expect(run.code, run.output).toBe(0);
    expect(run.answered, run.output).toBe(500);
    expect(run.error).toMatchObject({
      name: 'CredentialsProviderError',
      message: 'Unable to find environment variable credentials.',
    });
    expect(proxy.seen).toEqual([]);
  }, 60_000);
});

describe('a bundled function started on the Lambda runtime’s Node', () => {
  it('has loaded, by the end of its first request, none of the modules only other protocols and credential providers use', async () => {
    const run = await runGetPet({ ...lambdaEnvironment(), ...LAMBDA_CREDENTIALS });

    expect(run.answered, run.output).toBe(404);
    expect(run.modules).toContain('NativeModule http');
    expect(run.modules.filter((module) => NEVER_NEEDED.includes(module))).toEqual([]);
  }, 60_000);
});
