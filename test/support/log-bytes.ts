import { randomUUID } from 'node:crypto';
import { authorizerFunction } from '#functions/authorizer';
import { buildOperationHandlers, SCOPE_RESOURCES } from '#functions/operations';
import { publishPetEvents } from '#functions/publish-pet-events';
import { ACCESS_LOG_FORMAT_TEXT } from '#infra/access-log';
import { STAGE_PLANS } from '#infra/stage-plans';
import { generateApiKey } from '#shared/auth/api-key';
import { ENV, type FunctionConfig } from '#shared/config';
import type { Pet } from '#shared/domain/pet';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/http/idempotency-headers';
import { createLogger } from '#shared/observability/logger';
import { lambdaContext } from '#tools/lambda/context';
import { inInvocationStore } from '#tools/lambda/invoke-store';
import { startLocalGateway } from '#tools/local/gateway';
import { adminFor, createBenchTables } from '../../bench/tables';
import { pet, streamRecord } from './stream-records';

/**
 * CloudWatch Logs bytes per request, for the cost model of docs/costs.md:
 *
 * - the lines a function writes itself (Powertools logs and EMF metric lines), **measured**: the
 *   real handlers, built by their composition roots with production's configuration (INFO, metrics
 *   on, the stage), behind the local gateway, on DynamoDB Local; stdout counted per request, after
 *   one warm-up request of each kind (a cold start adds Powertools' one `ColdStart` EMF line);
 * - the lines Lambda writes itself for every invocation (`START`, `END`, `REPORT` with its X-Ray
 *   part), which no local run produces: counted from their documented text format with typical
 *   values (PLATFORM_LINES);
 * - API Gateway's access log line, one per request: the stack's format (ACCESS_LOG_FIELDS) with
 *   typical values put in (ACCESS_LOG_SAMPLE).
 *
 * test/integration/cost-model.test.ts measures them on every run and holds docs/costs.md's
 * figures to them.
 */

export type LoggedOperation =
  | 'list'
  | 'get'
  | 'create'
  | 'create (Idempotency-Key)'
  | 'change'
  | 'remove'
  | 'rejected (400)'
  | 'authorize';

export interface LogBytesRow {
  readonly operation: LoggedOperation;
  /** Bytes the function wrote to stdout and stderr per request, newlines included. */
  readonly functionBytes: number;
  /** Lines it wrote per request. */
  readonly functionLines: number;
}

/** What Lambda writes for each invocation, in its text log format (typical values). */
export const PLATFORM_LINES = [
  'START RequestId: 8f507cfc-7a5b-4697-b07a-ac58fc914c95 Version: 12\n',
  'END RequestId: 8f507cfc-7a5b-4697-b07a-ac58fc914c95\n',
  'REPORT RequestId: 8f507cfc-7a5b-4697-b07a-ac58fc914c95\tDuration: 12.41 ms\tBilled Duration: 13 ms\t' +
    'Memory Size: 512 MB\tMax Memory Used: 98 MB\t\n' +
    'XRAY TraceId: 1-674a1b2c-3d4e5f60718293a4b5c6d7e8\tSegmentId: 5f8d8bab6d1cdc01\tSampled: true\t\n',
] as const;

/** Typical values of the access log's variables (a key id, a cache miss of the authorizer). */
const ACCESS_LOG_VALUES: Readonly<Record<string, string>> = {
  '$context.extendedRequestId': 'CeB3rGQxoAMEbLw=',
  '$context.requestTime': '24/Nov/2026:10:15:42 +0000',
  '$context.identity.sourceIp': '203.0.113.17',
  '$context.httpMethod': 'GET',
  '$context.resourcePath': '/pets/{petId}',
  '$context.status': '200',
  '$context.responseLength': '74',
  '$context.responseLatency': '38',
  '$context.integrationLatency': '21',
  '$context.integrationStatus': '200',
  '$context.apiId': 'a1b2c3d4e5',
  '$context.authorizer.principalId': 'key-1a2b3c4d5e6f',
  '$context.authorizer.scopes': 'read:pets write:pets',
  '$context.authorizer.requestId': '8f507cfc-7a5b-4697-b07a-ac58fc914c95',
  '$context.authorizer.latency': '0',
  '$context.authorizer.status': '200',
  '$context.error.responseType': '-',
  '$context.error.messageString': '"-"',
};

/** One access log line of the stack's format, with ACCESS_LOG_VALUES put in. */
export const ACCESS_LOG_SAMPLE = `${ACCESS_LOG_FORMAT_TEXT.replace(/\$context\.[A-Za-z.]+/g, (variable) => {
  const value = ACCESS_LOG_VALUES[variable];
  if (value === undefined) throw new Error(`No sample value for ${variable}`);
  return value;
})}\n`;

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Lambda's own lines of one invocation, in bytes. */
export const PLATFORM_BYTES = PLATFORM_LINES.reduce((total, line) => total + bytes(line), 0);
/** One access log line, in bytes. */
export const ACCESS_LOG_BYTES = bytes(ACCESS_LOG_SAMPLE);

/** What the process writes while `run` runs: stdout and stderr, where Powertools writes. */
const captured = async (run: () => Promise<void>): Promise<string> => {
  const chunks: string[] = [];
  const originals = [process.stdout.write, process.stderr.write] as const;
  const capture = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  try {
    await run();
  } finally {
    [process.stdout.write, process.stderr.write] = originals;
  }
  return chunks.join('');
};

export interface LogBytesOptions {
  /** A running DynamoDB (Local). */
  readonly endpoint: string;
  /** Requests of each kind measured (after one warm-up). @default 20 */
  readonly requests?: number;
}

/** Bytes each kind of request makes a function log, measured through the local gateway. */
export const measureLogBytes = async ({
  endpoint,
  requests = 20,
}: LogBytesOptions): Promise<LogBytesRow[]> => {
  const admin = adminFor(endpoint);
  const { key, record } = generateApiKey('log-bytes');
  const names = await createBenchTables(admin, 'log-bytes', record);
  admin.client.destroy();
  // As the stack configures the functions in production.
  const config: FunctionConfig = {
    tables: names,
    dynamoDb: { endpoint },
    metrics: true,
    logLevel: 'INFO',
    stage: 'production',
    plans: STAGE_PLANS.production,
    scopes: SCOPE_RESOURCES,
  };
  // The gateway lets invocations overlap for the whole process (AWS_LAMBDA_MAX_CONCURRENCY): the
  // integration files after this one in its worker invoke functions one at a time, outside any store.
  const overlapping = process.env[ENV.lambdaMaxConcurrency];
  const gateway = await startLocalGateway({
    port: 0,
    handlers: buildOperationHandlers(config),
    authorizer: authorizerFunction.build(config),
  });
  const call = async (path: string, init: RequestInit = {}, expected = 200): Promise<string> => {
    const response = await fetch(`${gateway.baseUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${key}`, ...init.headers },
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`${path} answered ${response.status}, not ${expected}`);
    return text;
  };
  const json = { 'Content-Type': 'application/json' };
  const body = JSON.stringify({ name: 'Biscuit', categoryId: 1 });
  const create = async () =>
    (JSON.parse(await call('/pets', { method: 'POST', headers: json, body }, 201)) as Pet).id;
  // A removal needs a pet of its own each time: created with the warm-up, whose bytes are not counted.
  const removable: number[] = [];
  const kinds: Record<Exclude<LoggedOperation, 'authorize'>, () => Promise<unknown>> = {
    list: () => call('/pets?limit=20'),
    get: () => call('/pets/1'),
    create,
    'create (Idempotency-Key)': () =>
      call(
        '/pets',
        { method: 'POST', headers: { ...json, [IDEMPOTENCY_KEY_HEADER]: randomUUID() }, body },
        201,
      ),
    change: () =>
      call('/pets/1', {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ status: 'sold' }),
      }),
    remove: () => call(`/pets/${removable.pop()}`, { method: 'DELETE' }, 204),
    'rejected (400)': () => call('/pets?limit=0', {}, 400),
  };
  try {
    await captured(async () => {
      await create();
      for (let pet = 0; pet <= requests; pet++) removable.push(await create());
      for (const run of Object.values(kinds)) await run();
    });
    const rows: LogBytesRow[] = [];
    let authorizer = '';
    for (const [operation, run] of Object.entries(kinds) as [LoggedOperation, () => Promise<unknown>][]) {
      const written = await captured(async () => {
        for (let index = 0; index < requests; index++) await run();
      });
      // The local gateway calls the authorizer on every request; API Gateway, once per key and TTL.
      const lines = written.split(/(?<=\n)/).filter((line) => line !== '');
      const [mine, theirs] = [
        lines.filter((line) => !line.includes('"function_name":"authorizer"')),
        lines.filter((line) => line.includes('"function_name":"authorizer"')),
      ];
      authorizer += theirs.join('');
      rows.push({
        operation,
        functionBytes: bytes(mine.join('')) / requests,
        functionLines: mine.length / requests,
      });
    }
    const authorizerCalls = Object.keys(kinds).length * requests;
    rows.push({
      operation: 'authorize',
      functionBytes: bytes(authorizer) / authorizerCalls,
      functionLines: authorizer.split('\n').filter((line) => line !== '').length / authorizerCalls,
    });
    return rows;
  } finally {
    await gateway.close();
    if (overlapping === undefined) delete process.env[ENV.lambdaMaxConcurrency];
  }
};

/**
 * The bytes the events publisher logs for a batch of one record, as the stack configures it
 * (INFO), its bus taking every event; one warm-up batch first, not counted.
 */
export const measurePublisherLogBytes = async (batches = 20): Promise<number> => {
  // In a store of its own, as npm start runs it: the local gateway (above) lets invocations overlap.
  const handler = inInvocationStore(
    publishPetEvents({
      bus: { put: async (entries) => entries.map((_, index) => ({ eventId: `logged-${index}` })) },
      logger: createLogger({ logLevel: 'INFO' }),
    }),
  );
  const batch = { Records: [streamRecord(1, { after: { pet: pet(1), version: 1 } })] };
  const invoke = () => handler(batch, lambdaContext('publishPetEvents'));
  await captured(async () => void (await invoke()));
  const written = await captured(async () => {
    for (let index = 0; index < batches; index++) await invoke();
  });
  return bytes(written) / batches;
};
