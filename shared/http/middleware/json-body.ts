import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
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

const bodyChecks = (maxBytes: number): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    checkBody({ bytes: bodyBytes(event), contentType: event.headers?.['content-type'] }, maxBytes);
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
export const jsonBody = (maxBytes = MAX_BODY_BYTES): middy.MiddlewareObj<APIGatewayProxyEvent>[] => [
  bodyChecks(maxBytes),
  httpJsonBodyParser() as middy.MiddlewareObj<APIGatewayProxyEvent>,
];
