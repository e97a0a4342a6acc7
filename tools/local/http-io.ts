import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { AllowedOrigins } from '#shared/allowed-origins';
import { errorBody } from '#shared/http/error-body';
import { answerHeaders } from '#shared/http/gateway-behaviour';
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

/** The web origins a stage allows, and the request's one `Origin`: what decides an answer's CORS headers. */
export interface RequestCors {
  readonly allowed: AllowedOrigins;
  readonly origin: string | undefined;
}

/**
 * The Error object of a refusal, with the headers of its answer (CORS ones as API Gateway sends
 * them for `cors`) and the request id; returns the status sent.
 */
export const sendRefusal = (
  response: ServerResponse,
  refusal: GatewayRefusal,
  requestId: string,
  cors: RequestCors = { allowed: [], origin: undefined },
): number => {
  const { status } = refusal.answer;
  response.writeHead(status, {
    ...answerHeaders(refusal.answer, cors.allowed, cors.origin),
    'x-amzn-RequestId': requestId,
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
