import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { checkExactNumbers } from '#shared/http/exact-numbers';
import { headerValues } from '#shared/http/headers';
import { HttpError } from '#shared/http/http-error';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { isJsonUtf8 } from '#shared/http/media-type';

const JSON_MEDIA_TYPE = 'application/json';

const bodyBytes = (event: APIGatewayProxyEvent): number =>
  event.body === null ? 0 : Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

/**
 * Refuses, before anything parses the body: one over the size limit (413), a missing body (400)
 * and any media type but `application/json` (415), read as RFC 9110 says (case-insensitive,
 * spaces around `;`).
 */
export const checkBody = (
  body: { readonly bytes: number; readonly contentType: string | undefined },
  maxBytes = MAX_BODY_BYTES,
): void => {
  if (body.bytes > maxBytes) {
    throw new HttpError(
      'PAYLOAD_TOO_LARGE',
      `Request body is ${body.bytes} bytes; at most ${maxBytes} are accepted`,
    );
  }
  if (body.bytes === 0) throw new HttpError('INVALID_JSON', 'Request body is required: a JSON object');
  if (!isJsonUtf8(body.contentType)) {
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
};

/**
 * Refuses a body sent with a content coding (`Content-Encoding: gzip`, …): the service applies
 * none, and a coded body read as JSON text would be garbage or, worse, accepted. 415, with
 * `Accept-Encoding: identity` saying what it takes (RFC 9110, 15.5.16). `identity` is no coding.
 */
export const checkContentCoding = (values: readonly string[]): void => {
  const codings = values
    .flatMap((value) => value.split(','))
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 0) {
    throw new HttpError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Content-Encoding ${codings.join(', ')} is not supported: send the body uncompressed`,
      { headers: { 'Accept-Encoding': 'identity' } },
    );
  }
};

declare const jsonBodyReader: unique symbol;

/**
 * What `jsonBody()` returns, and only it: the endpoint of an operation that reads a body takes
 * this (shared/http/endpoint.ts), so no other list of middleware can stand in for the checks the
 * document promises (413, 415, INVALID_JSON).
 */
export type JsonBodyReader = readonly middy.MiddlewareObj<APIGatewayProxyEvent>[] & {
  readonly [jsonBodyReader]: true;
};

const NOT_UTF8 = 'Request body is not valid UTF-8';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as text, refusing bytes that are not UTF-8 (RFC 8259 requires it) as INVALID_JSON.
 * Base64 (`isBase64Encoded`, as API Gateway sends a binary media type): its bytes are decoded
 * strictly. Text: API Gateway has decoded the bytes as UTF-8 already, each invalid sequence
 * becoming U+FFFD, the replacement character; the function cannot tell that from a U+FFFD the
 * client sent, so a body holding one is refused. U+FFFD written as the JSON escape `\ufffd`
 * passes: it is plain ASCII.
 */
export const bodyText = (body: string, isBase64Encoded: boolean): string => {
  if (isBase64Encoded) {
    try {
      return strictUtf8.decode(Buffer.from(body, 'base64'));
    } catch {
      throw new HttpError('INVALID_JSON', NOT_UTF8);
    }
  }
  if (body.includes('\uFFFD')) {
    throw new HttpError(
      'INVALID_JSON',
      `${NOT_UTF8}: it holds U+FFFD, what bytes that are not UTF-8 become on the way (to send that character, escape it as \\ufffd)`,
    );
  }
  return body;
};

const bodyChecks = (maxBytes: number): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    checkBody({ bytes: bodyBytes(event), contentType: event.headers?.['content-type'] }, maxBytes);
    checkContentCoding(headerValues(event, 'content-encoding'));
    // Text from here on: middy's parser would decode base64 leniently.
    event.body = bodyText(event.body ?? '', event.isBase64Encoded);
    event.isBase64Encoded = false;
    // Its numbers as sent: one a double cannot hold exactly is refused, never read rounded.
    checkExactNumbers(event.body);
    // Written in the one form middy's parser matches (its test is case-sensitive); the type
    // itself was checked above, as RFC 9110 reads it.
    event.headers = { ...event.headers, 'content-type': JSON_MEDIA_TYPE };
  },
});

/**
 * JSON request bodies: the checks above, then middy's parser. The media type is checked here,
 * so every error of the parser is a malformed body (the error mapper knows it by its package).
 * Runs after middy's header normalizer (header names in lower case).
 */
export const jsonBody = (maxBytes = MAX_BODY_BYTES): JsonBodyReader =>
  [
    bodyChecks(maxBytes),
    httpJsonBodyParser() as middy.MiddlewareObj<APIGatewayProxyEvent>,
  ] as unknown as JsonBodyReader;
