import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { type AllowedOrigins, gatewayResponseCorsHeaders } from '#shared/http/cors';
import { ERROR_STATUS, errorBody } from '#shared/http/error-body';
import { gatewayHeaders } from '#shared/http/gateway-responses';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/** Reading requests and writing answers for the local gateway, as API Gateway frames them. */

/** Header pairs in the order and case they were sent. */
export const headerPairs = (request: IncomingMessage): [string, string][] => {
  const pairs: [string, string][] = [];
  // Node gives them as name, value, name, value...: always pairs.
  for (let index = 0; index < request.rawHeaders.length; index += 2) {
    pairs.push([request.rawHeaders[index] as string, request.rawHeaders[index + 1] as string]);
  }
  return pairs;
};

/** Every value of a header, whatever the case of its name. */
export const valuesOf = (pairs: readonly (readonly [string, string])[], name: string): string[] =>
  pairs.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value);

/** The whole body, or a REQUEST_TOO_LARGE refusal past `limit` bytes (declared or sent). */
export const readBody = (request: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolveBody, reject) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(GatewayRefusal.of('REQUEST_TOO_LARGE'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(GatewayRefusal.of('REQUEST_TOO_LARGE'));
        request.removeAllListeners('data');
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolveBody(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/**
 * The CORS headers of a gateway response, as API Gateway fills them in for a request with this
 * `Origin`: fixed values as they are, a copied request header when the request has it.
 */
export const gatewayResponseCors = (
  allowed: AllowedOrigins,
  origin: string | undefined,
): Readonly<Record<string, string>> =>
  Object.fromEntries(
    Object.entries(gatewayResponseCorsHeaders(allowed)).flatMap(([name, value]) => {
      if (typeof value === 'string') return [[name, value]];
      return value.requestHeader.toLowerCase() === 'origin' && origin ? [[name, origin]] : [];
    }),
  );

/** The Error object of a refusal; returns the status sent. `cors`: a gateway response's CORS headers. */
export const sendRefusal = (
  response: ServerResponse,
  refusal: GatewayRefusal,
  requestId: string,
  cors: Readonly<Record<string, string>> = {},
): number => {
  const status = ERROR_STATUS[refusal.code];
  response.writeHead(status, {
    ...gatewayHeaders(refusal.code),
    ...(refusal.answeredBy === 'gateway-response' ? cors : {}),
    'x-amzn-RequestId': requestId,
    ...refusal.headers,
  });
  response.end(JSON.stringify(errorBody(refusal.code, refusal.message, { requestId })));
  return status;
};

/** A function's proxy result as the HTTP answer; a malformed one is an integration failure. */
export const sendResult = (response: ServerResponse, result: unknown, requestId: string): number => {
  if (typeof result !== 'object' || result === null || !('statusCode' in result)) {
    throw GatewayRefusal.of('INTEGRATION_FAILURE');
  }
  const proxy = result as APIGatewayProxyResult;
  if (typeof proxy.statusCode !== 'number' || typeof proxy.body !== 'string') {
    throw GatewayRefusal.of('INTEGRATION_FAILURE');
  }
  const headers: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
  for (const [name, value] of Object.entries(proxy.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(proxy.multiValueHeaders ?? {})) {
    headers[name] = values.map(String);
  }
  response.writeHead(proxy.statusCode, headers);
  response.end(proxy.isBase64Encoded ? Buffer.from(proxy.body, 'base64') : proxy.body);
  return proxy.statusCode;
};
