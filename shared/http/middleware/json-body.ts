import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { HttpError } from '#shared/http/http-error';

/** Largest request body accepted: a pet is a few hundred bytes; 16 KiB leaves ample room. */
export const MAX_BODY_BYTES = 16 * 1024;

const bodyBytes = (event: APIGatewayProxyEvent): number =>
  event.body === null ? 0 : Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

/** Refuses an oversized body (413) and a missing one (400) before anything parses it. */
const bodyLimits = (maxBytes: number): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    const size = bodyBytes(event);
    if (size > maxBytes) {
      throw new HttpError(
        'PAYLOAD_TOO_LARGE',
        `Request body is ${size} bytes; at most ${maxBytes} are accepted`,
      );
    }
    if (size === 0) throw new HttpError('INVALID_JSON', 'Request body is required: a JSON object');
  },
});

/**
 * JSON request bodies: size and presence checks, then middy's parser, which also insists on an
 * `application/json` content type. Its 415s are mapped to our codes in the error mapper.
 */
export const jsonBody = (maxBytes = MAX_BODY_BYTES): middy.MiddlewareObj<APIGatewayProxyEvent>[] => [
  bodyLimits(maxBytes),
  httpJsonBodyParser() as middy.MiddlewareObj<APIGatewayProxyEvent>,
];
