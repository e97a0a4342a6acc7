import { type AllowedOrigins, ANY_ORIGIN } from '#shared/allowed-origins';
import { ALL_SCOPES } from '#shared/auth/scopes';
import { isAllowedOrigin } from '#shared/http/cors';
import { deprecationHeaders } from '#shared/http/deprecation';
import { ERROR_STATUS, type ErrorCode } from '#shared/http/error-body';
import { RATE_LIMIT_POLICY_HEADER } from '#shared/http/rate-limit-policy';
import { API_GATEWAY_ID_HEADER, REQUEST_ID_HEADER } from '#shared/http/request-id';
import { RESPONSE_HEADERS } from '#shared/http/responses';
import { retryHeaders } from '#shared/http/retry';
import { type Operation, requestHeaderNames } from '#shared/operations/operation';

/**
 * What API Gateway answers by itself (gateway responses, 405, preflights, CORS headers), described once
 * for the stack (infra/constructs/gateway-answers.ts), the local gateway and the functions (`withCors`).
 * CORS (WHATWG Fetch standard): only a listed origin gets `Access-Control-Allow-Origin` and its grants.
 */

const HEADERS_OF_EVERY_ANSWER = [
  'Retry-After',
  REQUEST_ID_HEADER,
  RATE_LIMIT_POLICY_HEADER,
  API_GATEWAY_ID_HEADER,
];

const HEADERS_OF_EVERY_REQUEST = ['Authorization', 'Content-Type'];

/** `idempotency-key` as a header is written: `Idempotency-Key` (case does not matter to CORS). */
const headerCase = (name: string) => name.replace(/(^|-)([a-z])/g, (letter) => letter.toUpperCase());

/** Response headers an allowed origin may read on `operations`' answers (of none: API Gateway's own). */
export const corsExposedHeaders = (operations: readonly Operation[]): string[] => [
  ...new Set([
    ...operations.flatMap((operation) => [
      ...Object.values(operation.responses).flatMap((response) => Object.keys(response.headers ?? {})),
      ...(operation.deprecation ? Object.keys(deprecationHeaders(operation.deprecation)) : []),
    ]),
    ...HEADERS_OF_EVERY_ANSWER,
  ]),
];

/** Request headers an allowed origin may send, as a preflight grants them. */
export const corsAllowedHeaders = (operations: readonly Operation[]): string[] => [
  ...new Set([
    ...HEADERS_OF_EVERY_REQUEST,
    ...operations.flatMap((operation) => requestHeaderNames(operation).map(headerCase)),
  ]),
];

/** How long a browser may reuse a preflight answer: two hours, the longest Chromium honours. */
export const CORS_MAX_AGE_SECONDS = 7_200;

export const exposing = (headers: readonly string[]): Readonly<Record<string, string>> => ({
  'Access-Control-Expose-Headers': headers.join(', '),
});

/** What an allowed origin may read on API Gateway's own answers (a gateway response, the 405). */
const GATEWAY_CORS = exposing(corsExposedHeaders([]));

export interface GatewayError {
  readonly code: ErrorCode;
  readonly message: string;
}

/**
 * A value a mock copies from the request's context into a header; AWS's
 * "Parameter mapping source reference for REST APIs in API Gateway" allows $context variables.
 */
export type ContextVariable = 'extendedRequestId' | 'authorizer.rateLimitPolicy';

export interface AnswerContext {
  readonly requestId?: string;
  readonly authorizer?: Readonly<Record<string, unknown>>;
}

export const contextValue = (variable: ContextVariable, context: AnswerContext): string | undefined => {
  const value =
    variable === 'extendedRequestId'
      ? context.requestId
      : context.authorizer?.[variable.slice('authorizer.'.length)];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/**
 * One answer API Gateway gives itself. `by` decides what headers it can carry: a mock can read the
 * request's `Origin` and context; a gateway response has literals and request parameters only.
 */
export interface GatewayAnswer {
  readonly by: 'mock' | 'gateway-response';
  readonly status: number;
  /** The Error object's code and message; none for an answer without a body (a preflight). */
  readonly error?: GatewayError;
  readonly headers: Readonly<Record<string, string>>;
  /**
   * Headers a mock copies from the context. None on a gateway response: its `responseParameters` are request
   * parameters or literals only (x-amazon-apigateway-gateway-responses.responseParameters object).
   */
  readonly fromContext: Readonly<Record<string, ContextVariable>>;
  /** What an allowed origin gets besides `Access-Control-Allow-Origin`. */
  readonly cors: Readonly<Record<string, string>>;
}

export interface GatewayErrorAnswer extends GatewayAnswer {
  readonly error: GatewayError;
}

/** The gateway response types the stage maps to the Error object (API Gateway's `ResponseType`). */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'INVALID_API_KEY'
  | 'WAF_FILTERED'
  | 'REQUEST_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX'
  | 'API_CONFIGURATION_ERROR'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'EXPIRED_TOKEN'
  | 'INVALID_SIGNATURE'
  | 'RESOURCE_NOT_FOUND';

const UNAUTHORIZED: GatewayError = {
  code: 'UNAUTHORIZED',
  message: 'A valid API key is required: send "Authorization: Bearer <key>"',
};

/**
 * A method outside the key's scopes. API Gateway gives a gateway response only its literals and
 * `$context`, not the method's scope: the message names the scopes, and the document each operation's.
 */
const LACKS_SCOPE: GatewayError = {
  code: 'FORBIDDEN',
  message: `The API key lacks the scope this operation needs (${ALL_SCOPES.join(' or ')}: the API reference names each operation's)`,
};

const INTERNAL: GatewayError = { code: 'INTERNAL_ERROR', message: 'An internal error occurred' };
const NOT_FOUND: GatewayError = { code: 'NOT_FOUND', message: 'No such resource' };
const REJECTED: GatewayError = { code: 'VALIDATION_FAILED', message: 'The request was rejected' };
const AUTHORIZER_UNAVAILABLE: GatewayError = {
  code: 'SERVICE_UNAVAILABLE',
  message: 'Authorization is temporarily unavailable; retry shortly',
};

/**
 * Every type in AWS's "Gateway response types for API Gateway", as the Error object, so that
 * DEFAULT_4XX and DEFAULT_5XX (whose status applies to all unlisted types) never change another's status.
 */
export const GATEWAY_RESPONSES: Readonly<Record<GatewayResponseType, GatewayError>> = {
  UNAUTHORIZED,
  // The authorizer's policy does not allow the method (an explicit Deny, or no Allow covers it): the key is
  // valid but its scopes do not reach this method. A missing, unknown or revoked key is UNAUTHORIZED, 401.
  ACCESS_DENIED: LACKS_SCOPE,
  // API Gateway's answer to a path (or method) it has no resource for.
  MISSING_AUTHENTICATION_TOKEN: NOT_FOUND,
  // Over the key's plan rate (its usage plan), or over the stage's or the account's throttle.
  THROTTLED: {
    code: 'TOO_MANY_REQUESTS',
    message:
      'Too many requests: slow down to the rate of your plan (RateLimit-Policy) and retry after Retry-After seconds',
  },
  // The key's plan quota is used up until the next calendar day or month (UTC).
  QUOTA_EXCEEDED: {
    code: 'QUOTA_EXCEEDED',
    message: 'The request quota of your plan (RateLimit-Policy) is used up until its window resets',
  },
  // The key has no usage identifier in a usage plan of the stage (revoked while its decision is cached).
  INVALID_API_KEY: UNAUTHORIZED,
  // AWS WAF blocked the request (infra/constructs/firewall.ts).
  WAF_FILTERED: { code: 'FORBIDDEN', message: 'The request was blocked by the firewall' },
  REQUEST_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request is too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Content-Type must be application/json',
  },
  AUTHORIZER_FAILURE: AUTHORIZER_UNAVAILABLE,
  // An authorizer that throws, times out or answers garbage (AUTHORIZER_OUTCOMES): an outage.
  AUTHORIZER_CONFIGURATION_ERROR: AUTHORIZER_UNAVAILABLE,
  INTEGRATION_FAILURE: INTERNAL,
  INTEGRATION_TIMEOUT: {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service did not answer in time; retry shortly',
  },
  // A type AWS may add later: the only types DEFAULT_4XX and DEFAULT_5XX can still answer.
  DEFAULT_4XX: REJECTED,
  DEFAULT_5XX: INTERNAL,
  // Types this API never meets, each with the status AWS gives it, so none becomes another.
  API_CONFIGURATION_ERROR: INTERNAL,
  BAD_REQUEST_BODY: REJECTED,
  BAD_REQUEST_PARAMETERS: REJECTED,
  EXPIRED_TOKEN: UNAUTHORIZED,
  INVALID_SIGNATURE: UNAUTHORIZED,
  RESOURCE_NOT_FOUND: NOT_FOUND,
};

/**
 * The gateway response for each TOKEN authorizer outcome. `noToken`/`invalidToken`: a 401 without calling
 * the function (AWS's Authorizer reference, identityValidationExpression); `unauthorized`: it failed with
 * exactly `Unauthorized` (AWS's Lambda authorizer examples); `deny`: its policy does not allow the method
 * (re:Post, "troubleshoot HTTP 403 Forbidden errors when I use a Lambda authorizer": an explicit or implicit
 * deny in the policy is a 403, `ACCESS_DENIED` in "Gateway response types"); `error`/`timeout`/`malformed` (no `principalId`
 * and policy): `AuthorizerConfigurationException`, reported by others, 500 by default.
 */
export const AUTHORIZER_OUTCOMES = {
  noToken: 'UNAUTHORIZED',
  invalidToken: 'UNAUTHORIZED',
  unauthorized: 'UNAUTHORIZED',
  deny: 'ACCESS_DENIED',
  error: 'AUTHORIZER_CONFIGURATION_ERROR',
  timeout: 'AUTHORIZER_CONFIGURATION_ERROR',
  malformed: 'AUTHORIZER_CONFIGURATION_ERROR',
} as const satisfies Record<string, GatewayResponseType>;

export type AuthorizerOutcome = keyof typeof AUTHORIZER_OUTCOMES;

/**
 * Content types a mock (405, preflight) has an unread request template for. Passthrough NEVER refuses any
 * other with UNSUPPORTED_MEDIA_TYPE (AWS's API reference, "Integration"); no `Content-Type` means JSON per
 * "Method request behavior for payloads without mapping templates for REST APIs in API Gateway".
 */
export const MOCK_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'text/xml',
  'application/octet-stream',
] as const;

/** Whether a mock has a template for a `Content-Type`, by media type: assumed (docs/aws-ledger.md). */
export const mockAccepts = (contentType: string | undefined): boolean =>
  (MOCK_CONTENT_TYPES as readonly string[]).includes(
    (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '',
  );

const errorHeaders = (code: ErrorCode): Readonly<Record<string, string>> => ({
  ...RESPONSE_HEADERS,
  ...retryHeaders(code),
});

const REQUEST_ID_FROM_CONTEXT = { [REQUEST_ID_HEADER]: 'extendedRequestId' } as const satisfies Record<
  string,
  ContextVariable
>;

const AFTER_AUTHORIZATION_FROM_CONTEXT = {
  ...REQUEST_ID_FROM_CONTEXT,
  [RATE_LIMIT_POLICY_HEADER]: 'authorizer.rateLimitPolicy',
} as const satisfies Record<string, ContextVariable>;

export const gatewayResponse = (type: GatewayResponseType): GatewayErrorAnswer => {
  const error = GATEWAY_RESPONSES[type];
  return {
    by: 'gateway-response',
    status: ERROR_STATUS[error.code],
    error,
    headers: errorHeaders(error.code),
    fromContext: {},
    cors: GATEWAY_CORS,
  };
};

/** The 405 of a resource that accepts `allow`, answered by a mock integration (behind the authorizer). */
export const methodNotAllowed = (allow: readonly string[]): GatewayErrorAnswer => ({
  by: 'mock',
  status: ERROR_STATUS.METHOD_NOT_ALLOWED,
  error: {
    code: 'METHOD_NOT_ALLOWED',
    message: `Method not allowed; this resource accepts ${allow.join(', ')}`,
  },
  headers: { ...errorHeaders('METHOD_NOT_ALLOWED'), Allow: allow.join(', ') },
  // Behind the authorizer, and metered by the key's usage plan like any method.
  fromContext: AFTER_AUTHORIZATION_FROM_CONTEXT,
  cors: GATEWAY_CORS,
});

const { 'Content-Type': _noBody, ...PREFLIGHT_HEADERS } = RESPONSE_HEADERS;

/** The CORS preflight of a resource that accepts `allow`: a mock answering 204 without a key (browsers send none). */
export const preflight = (allow: readonly string[], allowedHeaders: readonly string[]): GatewayAnswer => ({
  by: 'mock',
  status: 204,
  headers: PREFLIGHT_HEADERS,
  fromContext: REQUEST_ID_FROM_CONTEXT,
  cors: {
    'Access-Control-Allow-Methods': allow.join(', '),
    'Access-Control-Allow-Headers': allowedHeaders.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
  },
});

/** `Vary: Origin` when an answer depends on the origin, i.e. whenever any origin is allowed. */
export const varyHeaders = (allowed: AllowedOrigins): Readonly<Record<string, string>> =>
  allowed.length > 0 ? { Vary: 'Origin' } : {};

/** The CORS headers of an answer that can read the request's `origin` (a function's, a mock's). */
export const corsHeaders = (
  allowed: AllowedOrigins,
  origin: string | undefined,
  granted: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> => ({
  ...varyHeaders(allowed),
  ...(isAllowedOrigin(allowed, origin) ? { 'Access-Control-Allow-Origin': origin, ...granted } : {}),
});

export type GatewayHeaderValue = string | { readonly requestHeader: string };

/**
 * A gateway response's CORS headers are fixed or copied, never conditional: any origin copies `Origin`; one
 * origin is fixed; several get none, as copying would allow all (docs/design.md, "CORS").
 */
export const gatewayResponseCorsHeaders = (
  allowed: AllowedOrigins,
  granted: Readonly<Record<string, string>> = GATEWAY_CORS,
): Readonly<Record<string, GatewayHeaderValue>> => {
  if (allowed.includes(ANY_ORIGIN)) {
    return { 'Access-Control-Allow-Origin': { requestHeader: 'Origin' }, ...granted, Vary: 'Origin' };
  }
  const [only, ...more] = allowed;
  return only !== undefined && more.length === 0 ? { 'Access-Control-Allow-Origin': only, ...granted } : {};
};

/** Every header a client receives with `answer` to a request from `origin`, as API Gateway sends it. */
export const answerHeaders = (
  answer: GatewayAnswer,
  allowed: AllowedOrigins,
  origin: string | undefined,
  context: AnswerContext = {},
): Readonly<Record<string, string>> => {
  const copied = Object.entries(answer.fromContext).flatMap(([name, variable]) => {
    const value = contextValue(variable, context);
    return value === undefined ? [] : [[name, value]];
  });
  const fixed = { ...answer.headers, ...Object.fromEntries(copied) };
  if (answer.by === 'mock') return { ...fixed, ...corsHeaders(allowed, origin, answer.cors) };
  const cors = Object.entries(gatewayResponseCorsHeaders(allowed, answer.cors)).flatMap(([name, value]) => {
    if (typeof value === 'string') return [[name, value]];
    return value.requestHeader.toLowerCase() === 'origin' && origin ? [[name, origin]] : [];
  });
  return { ...fixed, ...Object.fromEntries(cors) };
};
