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
  refuseDeepNesting,
  refuseInexactNumbers,
} from '#shared/http/exact-numbers';
import { headerValues } from '#shared/http/headers';
import { HttpError } from '#shared/http/http-error';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { isJsonUtf8 } from '#shared/http/media-type';
import type { ProxyHandler } from '#shared/lambda';
import { bodyMediaTypesOf, type Operation } from '#shared/operations/operation';

const bodyBytes = (event: APIGatewayProxyEvent): number =>
  event.body === null ? 0 : Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');

/**
 * Refuses, before anything parses the body: one over the size limit (413), a missing body (400)
 * and any media type but the operation's (`application/json` unless it says), read as RFC 9110
 * says (case-insensitive, spaces around `;`) (415).
 */
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

/**
 * Refuses a body sent with a content coding (`Content-Encoding: gzip`, …): the service applies
 * none, and a coded body read as JSON text would be garbage or, worse, accepted. 415, with
 * `Accept-Encoding: identity` saying what it takes (RFC 9110, 15.5.16). `identity` is no coding.
 */
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
 * The body as text, refusing bytes that are not UTF-8 (RFC 8259 requires it) as INVALID_JSON.
 * Base64 (`isBase64Encoded`, as API Gateway sends a binary media type): its bytes are decoded
 * strictly. Text: API Gateway has decoded the bytes as UTF-8 already, each invalid sequence
 * becoming U+FFFD, the replacement character; the function cannot tell that from a U+FFFD the
 * client sent, so a body holding one is refused. U+FFFD written as the JSON escape `\ufffd`
 * passes: it is plain ASCII.
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

/**
 * middy's options, and the one its code reads that its types leave out: the media type is
 * checked above, as RFC 9110 reads it, so the parser's own check (a case-sensitive match of
 * `Content-Type`) is off, and every error it throws is a malformed body.
 */
type ParserOptions = Parameters<typeof httpJsonBodyParser>[0] & { readonly disableContentTypeCheck: boolean };

/**
 * The body's text as JSON values, its numbers as sent (one a double cannot hold exactly is
 * refused, never read rounded), parsed once by middy's parser where `JSON.parse` hands the reviver
 * each number's text (Lambda's Node 24), and read once more losslessly before it where it does
 * not (Node 20: the tools and tests, from source). Whatever the parser throws is a malformed body:
 * the media type and the body's presence are checked before it runs.
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
      refuseDeepNesting(request.event.body ?? '');
      if (!exactInParse) checkExactNumbers(request.event.body ?? '');
      try {
        await parser.before?.(request);
      } catch (error) {
        throw invalidJson(error);
      }
      if (exactInParse) refuseInexactNumbers(request.event.body);
    },
  };
};

/** An operation whose request has a body: what `jsonEndpoint` serves. */
type OperationWithBody = Operation & { readonly request: { readonly body: v.GenericSchema } };

/**
 * The Lambda handler of an operation that reads a JSON body: `httpEndpoint`'s stack with the
 * body's checks and parser before validation. Its type takes only an operation with a body, as
 * `httpEndpoint`'s takes only one without, so no body goes unchecked and no other function's
 * bundle carries a body parser (each KB of a bundle is paid at every cold start).
 */
export const jsonEndpoint = <O extends OperationWithBody>(
  operation: O,
  dependencies: FunctionDependencies,
  handle: EndpointHandler<NoInfer<O>>,
): ProxyHandler =>
  // The body's checks, then the parser: after middy's header normalizer (names in lower case).
  endpointWith([bodyChecks(bodyMediaTypesOf(operation)), parseJson()], operation, dependencies, handle);
