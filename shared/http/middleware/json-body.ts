import type middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as v from 'valibot';
import { type EndpointHandler, endpointWith, type FunctionDependencies } from '#shared/http/endpoint';
import { invalidJson } from '#shared/http/error-mapper';
import {
  checkExactNumbers,
  exactNumbersReviver,
  parseGivesNumberSource,
  refuseInexactNumbers,
} from '#shared/http/exact-numbers';
import { headerValues } from '#shared/http/headers';
import { HttpError } from '#shared/http/http-error';
import { jsonShape, refuseDeepNesting, refuseRepeatedMembers } from '#shared/http/json-structure';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { isJsonUtf8 } from '#shared/http/media-type';
import type { ProxyHandler } from '#shared/lambda';
import { bodyMediaTypesOf, type Operation } from '#shared/operations/operation';

const bodyBytes = (event: APIGatewayProxyEvent): number =>
  event.body === null ? 0 : Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

/** Refuses, before anything parses it, a body over the limit (413), none (400), or of another media type (415). */
export const checkBody = (
  body: { readonly bytes: number; readonly contentType: string | undefined },
  maxBytes: number,
  mediaTypes: readonly string[] = bodyMediaTypesOf({}),
): void => {
  if (body.bytes > maxBytes) {
    throw new HttpError(
      'PAYLOAD_TOO_LARGE',
      `Request body is ${body.bytes} bytes; at most ${maxBytes} are accepted`,
    );
  }
  if (body.bytes === 0) throw new HttpError('INVALID_JSON', 'Request body is required: a JSON object');
  if (!isJsonUtf8(body.contentType, mediaTypes)) {
    throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${mediaTypes.join(' or ')}`);
  }
};

/** Refuses a content-coded body, which as JSON text would be garbage or accepted (RFC 9110, 15.5.16). */
const checkContentCoding = (values: readonly string[]): void => {
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

const NOT_UTF8 = 'Request body is not valid UTF-8';
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The body as text, refusing non-UTF-8 (RFC 8259). API Gateway turned invalid bytes into U+FFFD,
 * indistinguishable from a sent one, so a raw U+FFFD is refused (the escape `\ufffd` passes).
 */
const bodyText = (body: string, isBase64Encoded: boolean): string => {
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

const bodyChecks = (mediaTypes: readonly string[]): middy.MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    checkBody(
      { bytes: bodyBytes(event), contentType: event.headers?.['content-type'] },
      MAX_BODY_BYTES,
      mediaTypes,
    );
    checkContentCoding(headerValues(event, 'content-encoding'));
    // Text from here on: middy's parser would decode base64 leniently.
    event.body = bodyText(event.body ?? '', event.isBase64Encoded);
    event.isBase64Encoded = false;
  },
});

/** middy's options, and one its types leave out: its case-sensitive media type check is off (done above). */
type ParserOptions = Parameters<typeof httpJsonBodyParser>[0] & { readonly disableContentTypeCheck: boolean };

/**
 * The body as JSON, numbers exact (exact-numbers.ts), no object nested too deep or repeating a member name
 * (json-structure.ts); whatever the parser throws is a malformed body.
 */
export const parseJson = (): middy.MiddlewareObj<APIGatewayProxyEvent> => {
  const exactInParse = parseGivesNumberSource();
  const options: ParserOptions = {
    disableContentTypeCheck: true,
    ...(exactInParse ? { reviver: exactNumbersReviver } : {}),
  };
  const parser = httpJsonBodyParser(options);
  return {
    before: async (request) => {
      const text = request.event.body ?? '';
      const shape = jsonShape(text);
      refuseDeepNesting(text, shape);
      if (!exactInParse) checkExactNumbers(text);
      try {
        await parser.before?.(request);
      } catch (error) {
        throw invalidJson(error);
      }
      if (exactInParse) refuseInexactNumbers(request.event.body);
      refuseRepeatedMembers(text, shape, request.event.body);
    },
  };
};

type OperationWithBody = Operation & { readonly request: { readonly body: v.GenericSchema } };

/** `httpEndpoint` with the body's checks and parser; only it takes an operation with a body. */
export const jsonEndpoint = <O extends OperationWithBody>(
  operation: O,
  dependencies: FunctionDependencies,
  handle: EndpointHandler<NoInfer<O>>,
): ProxyHandler =>
  endpointWith([bodyChecks(bodyMediaTypesOf(operation)), parseJson()], operation, dependencies, handle);
