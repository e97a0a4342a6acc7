import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { GATEWAY_RESPONSES, type GatewayResponseType, methodNotAllowed } from '#infra/gateway-responses';
import { callerIdentity, lambdaContext } from '#infra/local/lambda-context';
import { allowedMethods, BASE_PATH, ROUTES, type Route, STAGE_NAME } from '#infra/routes';
import { ERROR_STATUS, type ErrorCode, errorBody } from '#shared/http/error-body';

/**
 * The local stand-in for API Gateway: the same route table as the stack, the real authorizer
 * called with a TOKEN event and its policy honoured, the real handlers called with REST proxy
 * events (payload 1.0), and API Gateway's own failures answered with the Error object.
 */

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
export type TokenAuthorizer = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

export interface LocalGatewayOptions {
  readonly handlers: Readonly<Record<Route['operationId'], ProxyHandler>>;
  readonly authorizer: TokenAuthorizer;
  /** @default 3000 (0 picks a free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** One line per request; silent when omitted. */
  readonly log?: (line: string) => void;
  /** API Gateway's own payload limit (10 MB); the functions enforce the API's smaller one. */
  readonly maxPayloadBytes?: number;
  /** The Lambda timeout the handlers see in `getRemainingTimeInMillis`. @default 10_000 */
  readonly functionTimeoutMs?: number;
  /** Files served outside the stage, to GET without a key: `/docs`, or `/docs/*` for all below it. @default {} */
  readonly staticRoutes?: Readonly<Record<string, { readonly contentType: string; readonly body: string }>>;
}

export interface LocalGateway {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

const API_GATEWAY_PAYLOAD_LIMIT = 10 * 1024 * 1024;
const ACCOUNT_ID = '000000000000';
const API_ID = 'local';
const REGION = 'local';

class GatewayReply {
  constructor(
    readonly code: ErrorCode,
    readonly message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

const gatewayReply = (type: GatewayResponseType): GatewayReply => {
  const { code, message } = GATEWAY_RESPONSES[type];
  return new GatewayReply(code, message);
};

interface MatchedRoute {
  readonly route: Route;
  readonly pathParameters: Record<string, string> | null;
}

/** Segments of a path; empty ones are kept, so `/pets//1` matches nothing, as in API Gateway. */
const splitPath = (path: string): string[] => path.split('/').slice(1);

/** The resource path a request path falls under, and its parameters; undefined when none. */
const matchResource = (
  requestPath: string,
): { resource: Route['path']; pathParameters: Record<string, string> | null } | undefined => {
  const segments = splitPath(requestPath);
  for (const resource of new Set(ROUTES.map((route) => route.path))) {
    const template = splitPath(resource);
    if (template.length !== segments.length) continue;
    const parameters: Record<string, string> = {};
    const matches = template.every((part, index) => {
      const segment = segments[index] ?? '';
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      if (name) {
        try {
          parameters[name] = decodeURIComponent(segment);
        } catch {
          parameters[name] = segment;
        }
        return true;
      }
      return part === segment;
    });
    if (matches) return { resource, pathParameters: Object.keys(parameters).length > 0 ? parameters : null };
  }
  return undefined;
};

/**
 * The route for a request: an unknown path is API Gateway's 404; a known path with another method
 * reaches the `ANY` mock method (behind the authorizer, like every method) that answers 405.
 */
const route = (method: string, requestPath: string): MatchedRoute | { notAllowed: GatewayReply } => {
  const resource = matchResource(requestPath);
  if (!resource) throw gatewayReply('MISSING_AUTHENTICATION_TOKEN');
  const match = ROUTES.find(
    (candidate) => candidate.path === resource.resource && candidate.method === method,
  );
  if (!match) {
    const { code, message, allow } = methodNotAllowed(allowedMethods(resource.resource));
    return { notAllowed: new GatewayReply(code, message, { Allow: allow }) };
  }
  return { route: match, pathParameters: resource.pathParameters };
};

/** IAM-style wildcard match of a policy resource against a method ARN. */
const arnMatches = (pattern: string, arn: string): boolean => {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(arn);
};

const statementsOf = (result: APIGatewayAuthorizerResult) =>
  (result.policyDocument?.Statement ?? []).flatMap((statement) => {
    const resources = 'Resource' in statement ? statement.Resource : undefined;
    return [resources ?? []]
      .flat()
      .map((resource) => ({ effect: statement.Effect, resource: String(resource) }));
  });

/** Allow only when some Allow statement covers the method ARN and no Deny does, as IAM decides. */
const policyAllows = (result: APIGatewayAuthorizerResult, methodArn: string): boolean => {
  const applicable = statementsOf(result).filter(({ resource }) => arnMatches(resource, methodArn));
  return (
    applicable.some(({ effect }) => effect === 'Allow') && !applicable.some(({ effect }) => effect === 'Deny')
  );
};

/** Request headers as API Gateway passes them: original names, last value and all values. */
const headersOf = (request: IncomingMessage) => {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index] as string;
    const value = request.rawHeaders[index + 1] as string;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  return { headers, multiValueHeaders };
};

const headerValue = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[value.length - 1] : value;
};

const queryOf = (search: URLSearchParams) => {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of search) {
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  const any = Object.keys(single).length > 0;
  return { queryStringParameters: any ? single : null, multiValueQueryStringParameters: any ? multi : null };
};

class PayloadTooLarge extends Error {}

const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolveBody, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new PayloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new PayloadTooLarge());
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolveBody(Buffer.concat(chunks)));
    request.on('error', reject);
  });

const sendError = (response: ServerResponse, reply: GatewayReply, requestId: string): number => {
  const status = ERROR_STATUS[reply.code];
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'x-amzn-RequestId': requestId,
    ...reply.headers,
  });
  response.end(JSON.stringify(errorBody(reply.code, reply.message, { requestId })));
  return status;
};

const sendResult = (response: ServerResponse, result: APIGatewayProxyResult, requestId: string): number => {
  if (!result || typeof result.statusCode !== 'number') throw gatewayReply('INTEGRATION_FAILURE');
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
  return result.statusCode;
};

export const startLocalGateway = async (options: LocalGatewayOptions): Promise<LocalGateway> => {
  const host = options.host ?? '127.0.0.1';
  const maxPayloadBytes = options.maxPayloadBytes ?? API_GATEWAY_PAYLOAD_LIMIT;
  const functionTimeoutMs = options.functionTimeoutMs ?? 10_000;

  const authorize = async (request: IncomingMessage, methodArn: string) => {
    const token = headerValue(request, 'authorization');
    // API Gateway does not call a TOKEN authorizer when the identity source is missing.
    if (!token) throw gatewayReply('UNAUTHORIZED');
    let result: APIGatewayAuthorizerResult;
    try {
      result = await options.authorizer(
        { type: 'TOKEN', authorizationToken: token, methodArn },
        lambdaContext('authorizer', { timeoutMs: functionTimeoutMs }),
      );
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') throw gatewayReply('UNAUTHORIZED');
      throw gatewayReply('AUTHORIZER_FAILURE');
    }
    if (!policyAllows(result, methodArn)) throw gatewayReply('ACCESS_DENIED');
    return result;
  };

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    requestId: string,
  ): Promise<number> => {
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://localhost');
    const rawPath = url.pathname;
    const file =
      method === 'GET'
        ? (options.staticRoutes?.[rawPath] ??
          options.staticRoutes?.[rawPath.replace(/^(\/[^/]+)\/.*$/, '$1/*')])
        : undefined;
    if (file) {
      response.writeHead(200, { 'Content-Type': file.contentType }).end(file.body);
      return 200;
    }
    const inStage = rawPath === BASE_PATH || rawPath.startsWith(`${BASE_PATH}/`);
    if (!inStage) throw gatewayReply('MISSING_AUTHENTICATION_TOKEN');
    const path = rawPath.slice(BASE_PATH.length).replace(/(.)\/$/, '$1') || '/';

    let body: Buffer;
    try {
      body = await readBody(request, maxPayloadBytes);
    } catch (error) {
      if (error instanceof PayloadTooLarge) throw gatewayReply('REQUEST_TOO_LARGE');
      throw error;
    }

    const matched = route(method, path);
    const methodArn = `arn:aws:execute-api:${REGION}:${ACCOUNT_ID}:${API_ID}/${STAGE_NAME}/${method}${path}`;
    const authorization = await authorize(request, methodArn);
    if ('notAllowed' in matched) throw matched.notAllowed;
    const now = new Date();
    const event: APIGatewayProxyEvent = {
      resource: matched.route.path,
      path,
      httpMethod: method,
      ...headersOf(request),
      ...queryOf(url.searchParams),
      pathParameters: matched.pathParameters,
      stageVariables: null,
      body: body.length > 0 ? body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        accountId: ACCOUNT_ID,
        apiId: API_ID,
        authorizer: {
          principalId: authorization.principalId,
          ...authorization.context,
          integrationLatency: 0,
        },
        domainName: headerValue(request, 'host') ?? 'localhost',
        domainPrefix: 'localhost',
        extendedRequestId: requestId,
        httpMethod: method,
        identity: callerIdentity(
          request.socket.remoteAddress ?? '127.0.0.1',
          headerValue(request, 'user-agent') ?? null,
        ),
        path: `${BASE_PATH}${path}`,
        protocol: `HTTP/${request.httpVersion}`,
        requestId,
        requestTime: now.toUTCString(),
        requestTimeEpoch: now.getTime(),
        resourceId: matched.route.operationId,
        resourcePath: matched.route.path,
        stage: STAGE_NAME,
      },
    };
    const handler = options.handlers[matched.route.operationId];
    let result: APIGatewayProxyResult;
    try {
      result = await handler(
        event,
        lambdaContext(matched.route.operationId, { timeoutMs: functionTimeoutMs }),
      );
    } catch {
      // A function that throws is an integration failure to API Gateway, never a stack trace.
      throw gatewayReply('INTEGRATION_FAILURE');
    }
    return sendResult(response, result, requestId);
  };

  const server = createServer((request, response) => {
    const started = performance.now();
    const requestId = randomUUID();
    handle(request, response, requestId)
      .catch((error: unknown) => {
        if (error instanceof GatewayReply) return sendError(response, error, requestId);
        options.log?.(`gateway error: ${error instanceof Error ? error.message : String(error)}`);
        return sendError(response, gatewayReply('DEFAULT_5XX'), requestId);
      })
      .then((status) => {
        const ms = (performance.now() - started).toFixed(1);
        options.log?.(`${request.method} ${request.url} ${status} ${ms}ms`);
      });
  });
  // Broken HTTP framing: a 400 with the Error object, and the server goes on.
  server.on('clientError', (_error, socket) => {
    if (!socket.writable) return;
    const body = JSON.stringify(errorBody('VALIDATION_FAILED', 'Malformed HTTP request'));
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 3000, host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}${BASE_PATH}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
};
