import { type ErrorCode, errorBody } from '#shared/http/error-body';
import { toHttpError } from '#shared/http/error-mapper';
import { GATEWAY_RESPONSES, type GatewayResponseType } from '#shared/http/gateway-behaviour';
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from '#shared/http/limits';

/** When each error code is sent, for people reading the document. */
export const WHEN: Readonly<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: `a parameter or field is missing, of the wrong type, out of range, repeated or unknown, or the body nests objects and arrays more than ${MAX_BODY_DEPTH} deep; \`details\` names each field at fault (\`query.limit\`, \`path.petId\`, \`body.name\`, …)`,
  INVALID_JSON: 'the body is missing, is not valid JSON, or its bytes are not UTF-8',
  UNAUTHORIZED: 'the API key is missing, unknown or revoked, or not sent as `Authorization: Bearer <key>`',
  FORBIDDEN:
    "the API key is valid but lacks the scope the operation needs (its `security` names it): API Gateway refuses it before any function runs, and nothing is changed. Or the firewall in front of the stage blocked the request: its address sent more than the firewall allows, or the request matched one of AWS's managed rules against common attacks (`npm start` has no firewall)",
  NOT_FOUND: 'the requested resource does not exist',
  METHOD_NOT_ALLOWED:
    'the path exists but does not accept this method; `Allow` lists those it does. OpenAPI cannot list the methods a path lacks, so this answer is declared on every operation of the path',
  IDEMPOTENCY_KEY_IN_USE:
    'an earlier request with the same `Idempotency-Key` (and API key) is still being processed; retry after `Retry-After` seconds to get its answer',
  PRECONDITION_FAILED:
    '`If-Match` names none of the ETags the animal has now (it changed since the client read it), or `If-None-Match` names its ETag (`*`: any); nothing was changed. Read it again for its ETag',
  PAYLOAD_TOO_LARGE: `the body is larger than ${MAX_BODY_BYTES / 1024} KiB`,
  IDEMPOTENCY_KEY_REUSED:
    'the `Idempotency-Key` was already used, within 24 hours and with the same API key, for a request with another body; a new request needs a new key',
  UNSUPPORTED_MEDIA_TYPE:
    'the body is not sent as `application/json` (or, for a change, `application/merge-patch+json`), or is sent with a `Content-Encoding` (`gzip`, …): it is taken uncompressed only, as `Accept-Encoding: identity` says',
  TOO_MANY_REQUESTS:
    "the key sent faster than its plan's rate (`RateLimit-Policy`, the `-rate` policy), or the stage's own throttle was reached; retry after `Retry-After` seconds, with backoff",
  QUOTA_EXCEEDED:
    "the key's plan quota (`RateLimit-Policy`, the policy named after the plan) is used up; it resets at the start of the next calendar day or month (UTC). `Retry-After` says an hour",
  REQUEST_TIMEOUT:
    'the request (its headers, or its body) did not arrive in time; the connection is closed (an answer of the HTTP layer, before any operation)',
  EXPECTATION_FAILED:
    'an `Expect` header other than `100-continue` (an answer of the HTTP layer, before any operation)',
  HEADERS_TOO_LARGE:
    'the request line and header lines, as sent with their CRLFs (the empty line after them not counted), are over 16 KiB (an answer of the HTTP layer, before any operation)',
  HTTP_VERSION_NOT_SUPPORTED:
    'the request line names an HTTP version other than 1.x (an answer of the HTTP layer, before any operation)',
  INTERNAL_ERROR: 'an unexpected failure; the body never carries internal details',
  NOT_IMPLEMENTED:
    'a `Transfer-Encoding` other than `chunked` (`gzip, chunked`, …): the body is taken with no transfer coding but chunked (an answer of the HTTP layer, before any operation)',
  SERVICE_UNAVAILABLE:
    'the database or the authorizer is temporarily unavailable, or the request ran out of time; retry shortly',
};

/** The `requestId` shown in error examples; every real error carries one. */
export const EXAMPLE_REQUEST_ID = 'ZjyqcFWuvHcFSOA=';

/** The Error object the service sends for `error`, mapped as at run time: no message is copied. */
export const errorExample = (error: unknown) => {
  const { code, message, details } = toHttpError(error);
  return errorBody(code, message, {
    ...(details ? { details: [...details] } : {}),
    requestId: EXAMPLE_REQUEST_ID,
  });
};

export const gatewayExample = (type: GatewayResponseType) =>
  errorBody(GATEWAY_RESPONSES[type].code, GATEWAY_RESPONSES[type].message, { requestId: EXAMPLE_REQUEST_ID });

/** What `run` throws: the refusal of a request, by the function that refuses it. */
export const refusalOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('Expected the example request to be refused');
};
