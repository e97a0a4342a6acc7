import { ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { describe, expect, it } from 'vitest';
import {
  AUTHORIZER_OUTCOMES,
  answerHeaders,
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponse,
  methodNotAllowed,
  preflight,
} from '#shared/http/gateway-behaviour';

/** The answers API Gateway gives itself, held to the codes and messages the API documents. */

describe("API Gateway's own answers", () => {
  it('are the documented code and message for each situation', () => {
    const unauthorized = {
      code: 'UNAUTHORIZED',
      message: 'A valid API key is required: send "Authorization: Bearer <key>"',
    };
    const internal = { code: 'INTERNAL_ERROR', message: 'An internal error occurred' };
    const notFound = { code: 'NOT_FOUND', message: 'No such resource' };
    const rejected = { code: 'VALIDATION_FAILED', message: 'The request was rejected' };
    const authorizerUnavailable = {
      code: 'SERVICE_UNAVAILABLE',
      message: 'Authorization is temporarily unavailable; retry shortly',
    };

    expect(GATEWAY_RESPONSES).toEqual({
      UNAUTHORIZED: unauthorized,
      ACCESS_DENIED: {
        code: 'FORBIDDEN',
        message:
          "The API key lacks the scope this operation needs (read:pets or write:pets: the API reference names each operation's)",
      },
      MISSING_AUTHENTICATION_TOKEN: notFound,
      THROTTLED: {
        code: 'TOO_MANY_REQUESTS',
        message:
          'Too many requests: slow down to the rate of your plan (RateLimit-Policy) and retry after Retry-After seconds',
      },
      QUOTA_EXCEEDED: {
        code: 'QUOTA_EXCEEDED',
        message: 'The request quota of your plan (RateLimit-Policy) is used up until its window resets',
      },
      INVALID_API_KEY: unauthorized,
      WAF_FILTERED: { code: 'FORBIDDEN', message: 'The request was blocked by the firewall' },
      REQUEST_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request is too large' },
      UNSUPPORTED_MEDIA_TYPE: {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Content-Type must be application/json',
      },
      AUTHORIZER_FAILURE: authorizerUnavailable,
      AUTHORIZER_CONFIGURATION_ERROR: authorizerUnavailable,
      INTEGRATION_FAILURE: internal,
      INTEGRATION_TIMEOUT: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service did not answer in time; retry shortly',
      },
      DEFAULT_4XX: rejected,
      DEFAULT_5XX: internal,
      API_CONFIGURATION_ERROR: internal,
      BAD_REQUEST_BODY: rejected,
      BAD_REQUEST_PARAMETERS: rejected,
      EXPIRED_TOKEN: unauthorized,
      INVALID_SIGNATURE: unauthorized,
      RESOURCE_NOT_FOUND: notFound,
    });
  });

  it("cover every gateway response type API Gateway has (the CDK's list of AWS's types), so no fallback gives one another status", () => {
    const types = Object.getOwnPropertyNames(ResponseType).filter((name) => /^[A-Z0-9_]+$/.test(name));

    expect(Object.keys(GATEWAY_RESPONSES).sort()).toEqual(types.sort());
  });

  it('say on every 429 whether a rate or a quota was exceeded, each with when to retry', () => {
    expect([gatewayResponse('THROTTLED'), gatewayResponse('QUOTA_EXCEEDED')]).toMatchObject([
      { status: 429, error: { code: 'TOO_MANY_REQUESTS' }, headers: { 'Retry-After': '1' } },
      { status: 429, error: { code: 'QUOTA_EXCEEDED' }, headers: { 'Retry-After': '3600' } },
    ]);
  });

  it('answer a request the firewall blocked with 403 FORBIDDEN', () => {
    expect(gatewayResponse('WAF_FILTERED')).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } });
  });

  it('copy nothing from the request’s context: AWS documents only request parameters and literals there', () => {
    for (const type of Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]) {
      expect(gatewayResponse(type).fromContext).toEqual({});
    }
  });

  it('answer an authorizer outage like a failure to reach it: 503 with Retry-After, never a 500', () => {
    for (const outcome of ['error', 'timeout', 'malformed'] as const) {
      expect(gatewayResponse(AUTHORIZER_OUTCOMES[outcome])).toMatchObject({
        status: 503,
        headers: { 'Retry-After': '1' },
      });
    }
  });

  it('give the 405 mock the caller’s plan (it is behind the authorizer), and the preflight only the request id', () => {
    expect(methodNotAllowed(['GET']).fromContext).toEqual({
      'Request-Id': 'extendedRequestId',
      'RateLimit-Policy': 'authorizer.rateLimitPolicy',
    });
    expect(preflight(['GET'], []).fromContext).toEqual({ 'Request-Id': 'extendedRequestId' });
  });

  it('copy from the request only the values it has: no RateLimit-Policy before a key is accepted', () => {
    const answer = methodNotAllowed(['GET']);

    expect(answerHeaders(answer, [], undefined, { requestId: 'r-1' })).toMatchObject({ 'Request-Id': 'r-1' });
    expect(answerHeaders(answer, [], undefined, { requestId: 'r-1' })).not.toHaveProperty('RateLimit-Policy');
    expect(
      answerHeaders(answer, [], undefined, { requestId: 'r-2', authorizer: { rateLimitPolicy: 'p' } }),
    ).toMatchObject({ 'Request-Id': 'r-2', 'RateLimit-Policy': 'p' });
  });
});
