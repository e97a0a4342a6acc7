import type { ErrorCode } from '#shared/http/error-body';
import { RESPONSE_HEADERS } from '#shared/http/responses';
import { retryHeaders } from '#shared/http/retry';

/**
 * What API Gateway answers by itself, before or instead of a function, mapped to the Error object.
 * The CDK stack turns each row into a gateway response (status from the code); the local server
 * answers the same situations from the same rows.
 */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'REQUEST_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayError {
  readonly code: ErrorCode;
  readonly message: string;
}

const UNAUTHORIZED: GatewayError = {
  code: 'UNAUTHORIZED',
  message: 'A valid API key is required: send "Authorization: Bearer <key>"',
};

export const GATEWAY_RESPONSES: Readonly<Record<GatewayResponseType, GatewayError>> = {
  UNAUTHORIZED,
  // An authorizer Deny is still "your key does not let you in": the client sees one 401.
  ACCESS_DENIED: UNAUTHORIZED,
  // API Gateway's answer to a path (or method) it has no resource for.
  MISSING_AUTHENTICATION_TOKEN: { code: 'NOT_FOUND', message: 'No such resource' },
  THROTTLED: { code: 'TOO_MANY_REQUESTS', message: 'Too many requests; slow down and retry' },
  QUOTA_EXCEEDED: { code: 'TOO_MANY_REQUESTS', message: 'Request quota exceeded' },
  REQUEST_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request is too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Content-Type must be application/json',
  },
  AUTHORIZER_FAILURE: {
    code: 'SERVICE_UNAVAILABLE',
    message: 'Authorization is temporarily unavailable; retry shortly',
  },
  AUTHORIZER_CONFIGURATION_ERROR: { code: 'INTERNAL_ERROR', message: 'An internal error occurred' },
  INTEGRATION_FAILURE: { code: 'INTERNAL_ERROR', message: 'An internal error occurred' },
  INTEGRATION_TIMEOUT: {
    code: 'SERVICE_UNAVAILABLE',
    message: 'The service did not answer in time; retry shortly',
  },
  DEFAULT_4XX: { code: 'VALIDATION_FAILED', message: 'The request was rejected' },
  DEFAULT_5XX: { code: 'INTERNAL_ERROR', message: 'An internal error occurred' },
};

/** The message and `Allow` of a 405, answered by API Gateway itself (a mock integration). */
export const methodNotAllowed = (allow: readonly string[]): GatewayError & { allow: string } => ({
  code: 'METHOD_NOT_ALLOWED',
  message: `Method not allowed; this resource accepts ${allow.join(', ')}`,
  allow: allow.join(', '),
});

/**
 * The headers of an answer API Gateway gives itself, as the stack's gateway responses and the
 * local gateway send them: those every response carries, and `Retry-After` on a 429 or 503.
 */
export const gatewayHeaders = (code: ErrorCode): Readonly<Record<string, string>> => ({
  ...RESPONSE_HEADERS,
  ...retryHeaders(code),
});
