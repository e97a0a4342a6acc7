import { MockIntegration, PassthroughBehavior, ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { type AllowedOrigins, ANY_ORIGIN } from '#shared/allowed-origins';
import { errorBody } from '#shared/http/error-body';
import {
  type GatewayAnswer,
  type GatewayError,
  type GatewayHeaderValue,
  type GatewayResponseType,
  gatewayResponse,
  gatewayResponseCorsHeaders,
  MOCK_CONTENT_TYPES,
  varyHeaders,
} from '#shared/http/gateway-behaviour';

/** API Gateway's own answers (`shared/http/gateway-behaviour.ts`) in API Gateway's terms; nothing here decides them. */

/**
 * The Error object as an API Gateway mapping template: the code, message and status of the
 * answer, and the request id API Gateway generated (`$context.extendedRequestId`: a client can
 * set `$context.requestId` with an `X-Amzn-RequestId` header). Nothing a client sends is written
 * into it, so it stays JSON whatever the request holds.
 */
export const errorTemplate = (error: GatewayError): string =>
  JSON.stringify({ ...errorBody(error.code, error.message), requestId: '$context.extendedRequestId' });

const originAllowed = (allowed: AllowedOrigins): string =>
  allowed.includes(ANY_ORIGIN)
    ? '"$!origin" != ""'
    : allowed.map((origin) => `$origin == '${origin}'`).join(' || ');

/**
 * CORS for a mock, as a mapping template. An integration response can set a header only for
 * some requests through `$context.responseOverride` in its template, which is what "allowed
 * origins only" needs: the template reads the request's `Origin` and, when it is allowed, sets
 * `headers` with the origin itself as `Access-Control-Allow-Origin`. One line, no output; empty
 * when no origin is allowed.
 */
export const corsOverrideTemplate = (
  allowed: AllowedOrigins,
  headers: Readonly<Record<string, string>>,
): string => {
  if (allowed.length === 0) return '';
  const overrides = Object.entries(headers)
    .map(([name, value]) => `#set($context.responseOverride.header.${name} = '${value}')`)
    .join('');
  return [
    // API Gateway keeps the header's case as sent; browsers send `Origin`.
    "#set($origin = $input.params().header.get('Origin'))",
    `#if("$!origin" == "")#set($origin = $input.params().header.get('origin'))#end`,
    `#if(${originAllowed(allowed)})`,
    '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
    overrides,
    '#end',
  ].join('');
};

/** A gateway response header value as API Gateway writes it: a quoted literal, or a request header. */
export const gatewayResponseValue = (value: GatewayHeaderValue): string =>
  typeof value === 'string' ? `'${value}'` : `method.request.header.${value.requestHeader}`;

const header = (name: string): string => `method.response.header.${name}`;

const quoted = (value: string): string => `'${value}'`;

/**
 * The mock integration giving `answer`: its fixed headers, those it copies from `context.*` (which
 * an integration response may map, unlike a gateway response), CORS headers set by the template
 * for an allowed origin only, then the Error object if it has one.
 */
export const mockAnswer = (answer: GatewayAnswer, origins: AllowedOrigins) => {
  const statusCode = String(answer.status);
  const requestTemplate = JSON.stringify({ statusCode: answer.status });
  const fixed = { ...answer.headers, ...varyHeaders(origins) };
  const parameters = Object.fromEntries([
    ...Object.entries(fixed).map(([name, value]) => [header(name), quoted(value)]),
    ...Object.entries(answer.fromContext).map(([name, variable]) => [header(name), `context.${variable}`]),
  ]);
  const cors = origins.length === 0 ? [] : ['Access-Control-Allow-Origin', ...Object.keys(answer.cors)];
  return {
    integration: new MockIntegration({
      passthroughBehavior: PassthroughBehavior.NEVER,
      requestTemplates: Object.fromEntries(MOCK_CONTENT_TYPES.map((type) => [type, requestTemplate])),
      integrationResponses: [
        {
          statusCode,
          responseTemplates: {
            'application/json': `${corsOverrideTemplate(origins, answer.cors)}${answer.error ? errorTemplate(answer.error) : ''}`,
          },
          responseParameters: parameters,
        },
      ],
    }),
    methodResponses: [
      {
        statusCode,
        responseParameters: {
          ...Object.fromEntries(Object.keys(parameters).map((name) => [name, true])),
          ...Object.fromEntries(cors.map((name) => [header(name), false])),
        },
      },
    ],
  };
};

/** The gateway response of `type` on `api`: status, fixed headers, the CORS headers it can carry, the Error object. */
export const addGatewayResponse = (
  api: RestApi,
  type: GatewayResponseType,
  origins: AllowedOrigins,
): void => {
  const answer = gatewayResponse(type);
  const headers: Record<string, GatewayHeaderValue> = {
    ...answer.headers,
    ...gatewayResponseCorsHeaders(origins, answer.cors),
  };
  api.addGatewayResponse(type, {
    type: ResponseType.of(type),
    statusCode: String(answer.status),
    responseHeaders: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, gatewayResponseValue(value)]),
    ),
    templates: { 'application/json': errorTemplate(answer.error) },
  });
};
