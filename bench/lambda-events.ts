import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { callerIdentity } from '#infra/local/lambda-context';
import { BASE_PATH, STAGE_NAME } from '#infra/routes';

/**
 * The events each function gets in the benchmark: REST proxy events (payload 1.0) and a TOKEN
 * authorizer event, shaped as API Gateway sends them. Plain data, so that they can be handed to
 * a child process as JSON.
 */

export type BenchFunction = 'list-pets' | 'create-pet' | 'get-pet' | 'authorizer';

export type BenchEvent = APIGatewayProxyEvent | APIGatewayTokenAuthorizerEvent;

const METHOD_ARN_PREFIX = `arn:aws:execute-api:us-east-1:000000000000:bench/${STAGE_NAME}`;

interface ProxyRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly resource: string;
  readonly query?: Record<string, string>;
  readonly pathParameters?: Record<string, string>;
  readonly body?: unknown;
}

export const proxyEvent = (request: ProxyRequest): APIGatewayProxyEvent => {
  const headers: Record<string, string> = {
    Host: 'bench.execute-api.us-east-1.amazonaws.com',
    'User-Agent': 'bench',
    Accept: 'application/json',
    ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  const query = request.query && Object.keys(request.query).length > 0 ? request.query : null;
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([name, value]) => [name, [value]]))
      : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body === undefined ? null : JSON.stringify(request.body),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      authorizer: { principalId: 'key-bench', keyId: 'key-bench', keyName: 'bench' },
      domainName: 'bench.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'bench',
      extendedRequestId: 'bench',
      httpMethod: request.method,
      identity: callerIdentity('127.0.0.1', 'bench'),
      path: `${BASE_PATH}${request.path}`,
      protocol: 'HTTP/1.1',
      requestId: 'bench-request',
      requestTimeEpoch: 0,
      resourceId: 'bench',
      resourcePath: request.resource,
      stage: STAGE_NAME,
    },
  };
};

export const authorizerEvent = (apiKey: string): APIGatewayTokenAuthorizerEvent => ({
  type: 'TOKEN',
  authorizationToken: `Bearer ${apiKey}`,
  methodArn: `${METHOD_ARN_PREFIX}/GET/pets`,
});

/** One event per function: a first page of 20, a new pet, an existing pet, a valid key. */
export const benchEvents = ({
  apiKey,
  existingPetId,
}: {
  apiKey: string;
  existingPetId: number;
}): Record<BenchFunction, BenchEvent> => ({
  'list-pets': proxyEvent({ method: 'GET', path: '/pets', resource: '/pets' }),
  'create-pet': proxyEvent({
    method: 'POST',
    path: '/pets',
    resource: '/pets',
    body: { name: 'Bench', categoryId: 7, status: 'pending' },
  }),
  'get-pet': proxyEvent({
    method: 'GET',
    path: `/pets/${existingPetId}`,
    resource: '/pets/{petId}',
    pathParameters: { petId: String(existingPetId) },
  }),
  authorizer: authorizerEvent(apiKey),
});

/** The listing filtered by status: measured for its DynamoDB cost (a Query on the index). */
export const filteredListEvent = (): APIGatewayProxyEvent =>
  proxyEvent({ method: 'GET', path: '/pets', resource: '/pets', query: { status: 'available' } });

/** The status each function must answer with its bench event. */
export const EXPECTED_STATUS: Readonly<Record<BenchFunction, number>> = {
  'list-pets': 200,
  'create-pet': 201,
  'get-pet': 200,
  authorizer: 200,
};
