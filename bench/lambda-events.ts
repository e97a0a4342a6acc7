import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { OperationId } from '#functions/operations';
import { IDEMPOTENCY_KEY_HEADER } from '#shared/http/idempotency-headers';
import { type ApiIdentity, methodArn, proxyEvent, tokenAuthorizerEvent } from '#tools/lambda/events';

/**
 * The events each function gets in the benchmark, built by tools/lambda/events.ts as the local
 * gateway builds its own: REST proxy events (payload 1.0) and a TOKEN authorizer event. Plain
 * data, so that they can be handed to a child process as JSON.
 */

/** An operation id in kebab case: `listPets` → `list-pets`, the name of its folder in functions/. */
type Kebab<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `-${Lowercase<Head>}`}${Kebab<Tail>}`
  : S;

/**
 * What the bench measures: every operation of OPERATIONS by its folder's name, the authorizer,
 * and createPet sent an Idempotency-Key. Derived from OPERATIONS, so every table of the bench
 * keyed by it (events, expected statuses, baselines, budgets) fails to compile until it covers a
 * new operation.
 */
export type BenchFunction = Kebab<OperationId> | 'create-pet-idempotent' | 'authorizer';

export type BenchEvent = APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent;

/** The API the requests pretend to reach: the stack's region. */
const BENCH_API: ApiIdentity = { accountId: '000000000000', apiId: 'bench', region: 'us-east-1' };

interface BenchRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly resource: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly pathParameters?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly headers?: readonly (readonly [string, string])[];
}

/** A request as a client sends it, after the authorizer accepted the bench's key. */
const benchProxyEvent = (request: BenchRequest): APIGatewayProxyEvent =>
  proxyEvent({
    api: BENCH_API,
    method: request.method,
    path: request.path,
    resource: request.resource,
    pathParameters: request.pathParameters ?? null,
    headers: [
      ['Host', `${BENCH_API.apiId}.execute-api.${BENCH_API.region}.amazonaws.com`],
      ['User-Agent', 'bench'],
      ['Accept', 'application/json'],
      ...(request.body === undefined ? [] : [['Content-Type', 'application/json'] as const]),
      ...(request.headers ?? []),
    ],
    query: Object.entries(request.query ?? {}),
    body: request.body === undefined ? null : JSON.stringify(request.body),
    requestId: 'bench-request',
    authorizer: { principalId: 'key-bench', keyId: 'key-bench', keyName: 'bench' },
  });

/**
 * One event per function: a first page of 20, a new pet (without and with an Idempotency-Key,
 * which the harnesses make new for every invocation: `freshRequest`), an existing pet, a
 * valid key.
 */
export const benchEvents = ({
  apiKey,
  existingPetId,
}: {
  apiKey: string;
  existingPetId: number;
}): Record<BenchFunction, BenchEvent> => ({
  'list-pets': benchProxyEvent({ method: 'GET', path: '/pets', resource: '/pets' }),
  'create-pet': benchProxyEvent({
    method: 'POST',
    path: '/pets',
    resource: '/pets',
    body: { name: 'Bench', categoryId: 7, status: 'pending' },
  }),
  'create-pet-idempotent': benchProxyEvent({
    method: 'POST',
    path: '/pets',
    resource: '/pets',
    body: { name: 'Bench', categoryId: 7, status: 'pending' },
    headers: [[IDEMPOTENCY_KEY_HEADER, 'replaced-before-each-invocation']],
  }),
  'get-pet': benchProxyEvent({
    method: 'GET',
    path: `/pets/${existingPetId}`,
    resource: '/pets/{petId}',
    pathParameters: { petId: String(existingPetId) },
  }),
  authorizer: tokenAuthorizerEvent(`Bearer ${apiKey}`, methodArn(BENCH_API, 'GET', '/pets')),
});

/** A listing, optionally by status and from a cursor: measured for its DynamoDB cost. */
export const listEvent = (query: Readonly<Record<string, string>> = {}): APIGatewayProxyEvent =>
  benchProxyEvent({ method: 'GET', path: '/pets', resource: '/pets', query });

/** A create as a client sends it, with this body: measured for the partitions its writes reach. */
export const createEvent = (body: unknown): APIGatewayProxyEvent =>
  benchProxyEvent({ method: 'POST', path: '/pets', resource: '/pets', body });

/** The status each function must answer with its bench event. */
export const EXPECTED_STATUS: Readonly<Record<BenchFunction, number>> = {
  'list-pets': 200,
  'create-pet': 201,
  'create-pet-idempotent': 201,
  'get-pet': 200,
  authorizer: 200,
};
