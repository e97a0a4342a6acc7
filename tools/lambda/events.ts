import { randomBytes, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { STAGE_NAME } from '#shared/http/paths';
import { callerIdentity } from '#tools/lambda/context';

/** Events as API Gateway (REST API) sends them, in null-prototype objects: a header `__proto__` is data. */

/** Account, API and region of the method ARN. */
export type ApiIdentity = Readonly<Record<'accountId' | 'apiId' | 'region', string>>;

export const LOCAL_API: ApiIdentity = { accountId: '000000000000', apiId: 'local', region: 'local' };

/** `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`, as API Gateway gives it. */
export const methodArn = (api: ApiIdentity, method: string, path: string): string =>
  `arn:aws:execute-api:${api.region}:${api.accountId}:${api.apiId}/${STAGE_NAME}/${method}${path}`;

/** An `extendedRequestId`: 16 base64 characters, the last `=` (knowledge center: "collect API Gateway
 * extended request IDs"; the length is what deployed APIs send, reported). */
export const newRequestId = (): string => randomBytes(11).toString('base64');

export const tokenAuthorizerEvent = (
  authorizationToken: string,
  arn: string,
): APIGatewayTokenAuthorizerEvent => ({ type: 'TOKEN', authorizationToken, methodArn: arn });

type Pairs = Iterable<readonly [string, string]>;

const singleAndMulti = (pairs: Pairs) => {
  const single: Record<string, string> = Object.create(null);
  const multi: Record<string, string[]> = Object.create(null);
  for (const [name, value] of pairs) {
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { single, multi, any: Object.keys(single).length > 0 };
};

export interface ProxyRequest {
  readonly api?: ApiIdentity;
  readonly method: string;
  /** Below the stage, e.g. `/pets/7`. */
  readonly path: string;
  /** The resource it matched, e.g. `/pets/{petId}`. */
  readonly resource: string;
  readonly pathParameters?: Readonly<Record<string, string>> | null;
  readonly headers?: Pairs;
  readonly query?: Pairs;
  readonly body?: string | null;
  /** The id API Gateway generates (`extendedRequestId`); `requestId` is a UUID of its own. */
  readonly requestId: string;
  readonly authorizer?: Readonly<Record<string, string | number | boolean | null | undefined>>;
  readonly sourceIp?: string;
  readonly protocol?: string;
  readonly now?: Date;
}

/** The REST proxy event (payload 1.0) a function receives for a request. */
export const proxyEvent = (request: ProxyRequest): APIGatewayProxyEvent => {
  const api = request.api ?? LOCAL_API;
  const headers = singleAndMulti(request.headers ?? []);
  const query = singleAndMulti(request.query ?? []);
  const now = request.now ?? new Date();
  const header = (name: string) =>
    Object.entries(headers.single).find(([key]) => key.toLowerCase() === name)?.[1];
  const host = header('host') ?? 'localhost';
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers: headers.single,
    multiValueHeaders: headers.multi,
    queryStringParameters: query.any ? query.single : null,
    multiValueQueryStringParameters: query.any ? query.multi : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: api.accountId,
      apiId: api.apiId,
      authorizer: { ...request.authorizer, integrationLatency: 0 },
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      extendedRequestId: request.requestId,
      httpMethod: request.method,
      identity: callerIdentity(request.sourceIp ?? '127.0.0.1', header('user-agent') ?? null),
      path: `/${STAGE_NAME}${request.path}`,
      protocol: request.protocol ?? 'HTTP/1.1',
      // A client's X-Amzn-RequestId would set it in AWS; the service never reads it.
      requestId: randomUUID(),
      requestTime: now.toUTCString(),
      requestTimeEpoch: now.getTime(),
      resourceId: request.resource,
      resourcePath: request.resource,
      stage: STAGE_NAME,
    },
  };
};
