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
 * Nothing a client sends goes in, so it stays JSON; `extendedRequestId`, as a client can set
 * `$context.requestId` with an `X-Amzn-RequestId` header.
 */
export const errorTemplate = (error: GatewayError): string =>
  JSON.stringify({ ...errorBody(error.code, error.message), requestId: '$context.extendedRequestId' });

const originAllowed = (allowed: AllowedOrigins): string =>
  allowed.includes(ANY_ORIGIN)
    ? '"$!origin" != ""'
    : allowed.map((origin) => `$origin == '${origin}'`).join(' || ');

/** Only `$context.responseOverride` sets a header for some requests: here, an allowed `Origin`'s. */
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

export const gatewayResponseValue = (value: GatewayHeaderValue): string =>
  typeof value === 'string' ? `'${value}'` : `method.request.header.${value.requestHeader}`;

const header = (name: string): string => `method.response.header.${name}`;

const quoted = (value: string): string => `'${value}'`;

/** An integration response may map `context.*` headers, unlike a gateway response. */
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
