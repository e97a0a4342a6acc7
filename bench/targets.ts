import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, DynamoDBStreamEvent } from 'aws-lambda';
import { authorizerFunction } from '#functions/authorizer';
import { getPetFunction } from '#functions/get-pet';
import { OPERATIONS, SCOPE_RESOURCES } from '#functions/operations';
import { publishPetEventsFunction } from '#functions/publish-pet-events';
import { functionEnvironment } from '#infra/constructs/api-function';
import { lambdaEntry } from '#infra/lambda-entries';
import { PROJECT_ROOT } from '#infra/project-root';
import { STAGE_PLANS } from '#infra/stage-plans';
import { STAGE_DEFAULTS } from '#infra/stages';
import type { TableNames } from '#shared/adapters/dynamodb/create-tables';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import { kebabName, type OperationFunction } from '#shared/composition/function';
import { ENV, type FunctionConfig, type TableKey } from '#shared/config';
import type { Operation } from '#shared/operations/operation';
import { lambdaContext } from '#tools/lambda/context';
import { type ApiIdentity, methodArn, proxyEvent, tokenAuthorizerEvent } from '#tools/lambda/events';
import { BENCH_CONTEXT, freshRequest, NEW_FOR_EACH_REQUEST, outcomeOf } from './lambda-context';

/** What a child needs of a function: `event` is plain data, `status` its success (200 for an Allow policy). */
export interface ChildTarget {
  readonly name: string;
  readonly tables: readonly TableKey[];
  readonly event: APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent | DynamoDBStreamEvent;
  readonly status: number;
  /** Variables the stack gives this function alone. */
  readonly environment?: Readonly<Record<string, string>>;
}

/** A function from OPERATIONS (a new one needs only `bench/baselines/<its folder>.ts`), or the authorizer. */
export interface BenchTarget extends ChildTarget {
  /** Its generated Lambda entry, relative to the project root. */
  readonly entry: string;
  readonly baseline: string;
  /** Which cold-start budgets hold it (LIMITS, bench/budgets.ts). */
  readonly kind: 'read' | 'write' | 'authorizer' | 'publisher';
  /** For a variant (`create-pet-idempotent`: what it sends), the function whose bundle it is. */
  readonly variantOf?: string;
  readonly invoker: (config: FunctionConfig) => () => Promise<number>;
}

const BENCH_API: ApiIdentity = { accountId: '000000000000', apiId: 'bench', region: 'us-east-1' };

const FIRST_PET_ID = '1';

const baselineOf = (name: string): string => {
  const file = `bench/baselines/${name}.ts`;
  if (!existsSync(join(PROJECT_ROOT, file))) {
    throw new Error(`No ${file}: a raw Lambda entry making the function's DynamoDB calls and nothing else`);
  }
  return file;
};

/** A request to `operation` as API Gateway passes it on: its path's example values or the first pet, its first example body. */
export const requestTo = (
  operation: Operation,
  extra: { query?: Record<string, string>; headers?: [string, string][] } = {},
): APIGatewayProxyEvent => {
  const body = operation.request.body && Object.values(operation.examples.requests ?? {})[0]?.value;
  if (operation.request.body && body === undefined) {
    throw new Error(`${operation.operationId} reads a body but its contract gives no example request`);
  }
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name ?? '');
  const values = Object.fromEntries(
    names.map((name) => [name, operation.examples.path?.[name] ?? FIRST_PET_ID]),
  );
  const headers: [string, string][] = [
    ['Host', `${BENCH_API.apiId}.execute-api.${BENCH_API.region}.amazonaws.com`],
    ['User-Agent', 'bench'],
  ];
  if (body !== undefined) headers.push(['Content-Type', 'application/json']);
  return proxyEvent({
    api: BENCH_API,
    method: operation.method,
    path: operation.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? FIRST_PET_ID),
    resource: operation.path,
    pathParameters: names.length > 0 ? values : null,
    headers: [...headers, ...(extra.headers ?? [])],
    query: Object.entries(extra.query ?? {}),
    body: body === undefined ? null : JSON.stringify(body),
    requestId: 'bench-request',
    authorizer: { principalId: 'key-bench', keyId: 'key-bench', keyName: 'bench' },
  });
};

export const invoke =
  <E>(handler: (event: E, context: ReturnType<typeof lambdaContext>) => Promise<unknown>, event: E) =>
  async (): Promise<number> =>
    outcomeOf(await handler(freshRequest(event), lambdaContext('bench', BENCH_CONTEXT)));

/** The stream's record of the first pet's creation, as Lambda passes it to the publisher. */
const firstPetCreated = (): DynamoDBStreamEvent => {
  const item = petItem({ id: Number(FIRST_PET_ID), name: 'Pet 1', categoryId: 2, status: 'available' });
  return {
    Records: [
      {
        eventID: 'bench-event',
        eventName: 'INSERT',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: BENCH_API.region,
        eventSourceARN: `arn:aws:dynamodb:${BENCH_API.region}:${BENCH_API.accountId}:table/bench-pets/stream/2026-12-07T00:00:00.000`,
        dynamodb: {
          ApproximateCreationDateTime: 1_796_650_000,
          Keys: marshall({ id: item.id }) as never,
          NewImage: marshall(item) as never,
          SequenceNumber: '000000000000000000001',
          SizeBytes: 90,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      },
    ],
  };
};

/**
 * Every function of the stack as the bench measures it; the authorizer accepts `apiKey`. The
 * publisher only with an EventBridge to call (bench/eventbridge-stand-in.ts): it runs in child
 * processes only, and uses no table.
 */
export const benchTargets = (
  apiKey: string,
  functions: readonly OperationFunction[] = OPERATIONS,
  options: { readonly eventBridgeEndpoint?: string } = {},
): BenchTarget[] => {
  const operations = functions.flatMap((root): BenchTarget[] => {
    const { operation } = root;
    const name = kebabName(root.name);
    const target = (event: APIGatewayProxyEvent): Omit<BenchTarget, 'name'> => ({
      // The baseline first: a function without one is refused before its entry is written.
      baseline: baselineOf(name),
      entry: lambdaEntry(root),
      tables: root.tables,
      event,
      status: Math.min(...Object.keys(operation.responses).map(Number)),
      kind: operation.method === 'GET' ? 'read' : 'write',
      invoker: (config) => invoke(root.build(config), event),
    });
    const key = operation.idempotency?.header;
    const sent = key && requestTo(operation, { headers: [[key, NEW_FOR_EACH_REQUEST]] });
    return [
      { name, ...target(requestTo(operation)) },
      ...(sent ? [{ name: `${name}-idempotent`, variantOf: name, ...target(sent) }] : []),
    ];
  });
  const event = tokenAuthorizerEvent(`Bearer ${apiKey}`, methodArn(BENCH_API, 'GET', '/pets'));
  return [
    ...operations,
    {
      name: kebabName(authorizerFunction.name),
      entry: lambdaEntry(authorizerFunction),
      baseline: baselineOf(kebabName(authorizerFunction.name)),
      tables: authorizerFunction.tables,
      event,
      status: 200,
      kind: 'authorizer',
      invoker: (config) => invoke(authorizerFunction.build(config), event),
      // The stack gives the authorizer the stage's plans and the scopes' methods (infra/pet-store-stack.ts).
      environment: {
        [ENV.plans]: JSON.stringify(STAGE_PLANS.production),
        [ENV.scopes]: JSON.stringify(SCOPE_RESOURCES),
      },
    },
    ...(options.eventBridgeEndpoint ? [publisherTarget(options.eventBridgeEndpoint)] : []),
  ];
};

const publisherTarget = (eventBridgeEndpoint: string): BenchTarget => {
  const event = firstPetCreated();
  const name = kebabName(publishPetEventsFunction.name);
  return {
    name,
    entry: lambdaEntry(publishPetEventsFunction),
    baseline: baselineOf(name),
    tables: publishPetEventsFunction.tables,
    event,
    status: 200,
    kind: 'publisher',
    invoker: () => {
      throw new Error('The publisher is measured in child processes only, where EventBridge is the stand-in');
    },
    // The stack gives it its bus; EventBridge is the stand-in, called with the environment's credentials.
    environment: {
      [ENV.eventBus]: 'bench-bus',
      AWS_ENDPOINT_URL_EVENTBRIDGE: eventBridgeEndpoint,
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    },
  };
};

/** The peer (bench/peer.ts), answering getPet's request: every function must start faster. */
export const PEER = {
  name: 'peer',
  entry: 'bench/peer.ts',
  tables: getPetFunction.tables,
  event: requestTo(getPetFunction.operation),
  status: 200,
} as const satisfies ChildTarget & { entry: string };

export const benchConfig = (endpoint: string, names: TableNames): FunctionConfig => ({
  tables: names,
  dynamoDb: { endpoint },
  logLevel: 'SILENT',
  metrics: false,
  plans: STAGE_PLANS.production,
  scopes: SCOPE_RESOURCES,
});

/** A function's environment, from scratch: the stack's in production, Lambda's, and DynamoDB Local. */
export const childEnvironment = (
  target: Pick<ChildTarget, 'name' | 'tables' | 'environment'>,
  endpoint: string,
  names: TableNames,
): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  ...functionEnvironment(STAGE_DEFAULTS.production.logLevel, 'production'),
  AWS_REGION: 'us-east-1',
  AWS_LAMBDA_FUNCTION_NAME: target.name,
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
  // Powertools counts a cold start (the logs' cold_start) only in an on-demand function.
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  // The SDK's notice to Node 20 (children falling back to this machine's Node) measures nothing.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  AWS_EC2_METADATA_DISABLED: 'true',
  [ENV.dynamoDbEndpoint]: endpoint,
  ...Object.fromEntries(target.tables.map((table) => [ENV.tables[table], names[table]])),
  ...target.environment,
});
