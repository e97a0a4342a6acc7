import { AccessLogField } from 'aws-cdk-lib/aws-apigateway';

// The access log's fields, beside the construct that writes them (constructs/pet-store-api.ts) rather
// than in it, so that `npm run verify` and the tests read them without loading the constructs.

/** An access-log value written inside quotes: one API Gateway generates, which no client can fill. */
const quoted = (variable: string): string => `"${variable}"`;

/**
 * One JSON line per request whatever a client sends, naming the key's id and scopes (as the authorizer
 * wrote them, space-separated) and the API (a stage's own: its refusals are counted per stage). `$context` values are
 * written unescaped, so only values a client cannot fill are quoted, and the error message is
 * "The quoted value of $context.error.message" (AWS, "Variables for access logging for API Gateway");
 * User-Agent and path are left out. `requestId` is the Error body's and functions' `correlation_id`;
 * `authorizerRequestId` the authorizer lines' `function_request_id` (log-queries.ts follows them).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: quoted(AccessLogField.contextExtendedRequestId()),
  apiId: quoted(AccessLogField.contextApiId()),
  requestTime: quoted(AccessLogField.contextRequestTime()),
  sourceIp: quoted(AccessLogField.contextIdentitySourceIp()),
  method: quoted(AccessLogField.contextHttpMethod()),
  resourcePath: quoted(AccessLogField.contextResourcePath()),
  status: quoted(AccessLogField.contextStatus()),
  responseLength: quoted(AccessLogField.contextResponseLength()),
  responseLatency: quoted(AccessLogField.contextResponseLatency()),
  integrationLatency: quoted(AccessLogField.contextIntegrationLatency()),
  integrationStatus: quoted(AccessLogField.contextIntegrationStatus()),
  keyId: quoted(AccessLogField.contextAuthorizerPrincipalId()),
  scopes: quoted(AccessLogField.contextAuthorizer('scopes')),
  authorizerRequestId: quoted('$context.authorizer.requestId'),
  authorizerLatency: quoted(AccessLogField.contextAuthorizerLatency()),
  authorizerStatus: quoted(AccessLogField.contextAuthorizerStatus()),
  errorType: quoted(AccessLogField.contextErrorResponseType()),
  errorMessage: AccessLogField.contextErrorMessageString(),
} as const;

export const ACCESS_LOG_FORMAT_TEXT = `{${Object.entries(ACCESS_LOG_FIELDS)
  .map(([name, value]) => `"${name}":${value}`)
  .join(',')}}`;
