import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '#infra/stages';
import { synthStages } from '../support/pet-store-app';
import { resourcesOfType } from '../support/template-queries';

const { templates } = synthStages();

interface GatewayResponseProperties {
  ResponseType: string;
  StatusCode: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

/** API Gateway's own answers as docs/api.md lists them: type, status, code and message. */
const DOCUMENTED: readonly [type: string, status: number, code: string, message: string][] = [
  ['UNAUTHORIZED', 401, 'UNAUTHORIZED', 'A valid API key is required: send "Authorization: Bearer <key>"'],
  ['ACCESS_DENIED', 401, 'UNAUTHORIZED', 'A valid API key is required: send "Authorization: Bearer <key>"'],
  ['MISSING_AUTHENTICATION_TOKEN', 404, 'NOT_FOUND', 'No such resource'],
  [
    'THROTTLED',
    429,
    'TOO_MANY_REQUESTS',
    'Too many requests: slow down to the rate of your plan (RateLimit-Policy) and retry after Retry-After seconds',
  ],
  [
    'QUOTA_EXCEEDED',
    429,
    'QUOTA_EXCEEDED',
    'The request quota of your plan (RateLimit-Policy) is used up until its window resets',
  ],
  ['INVALID_API_KEY', 401, 'UNAUTHORIZED', 'A valid API key is required: send "Authorization: Bearer <key>"'],
  ['WAF_FILTERED', 403, 'FORBIDDEN', 'The request was blocked by the firewall'],
  ['REQUEST_TOO_LARGE', 413, 'PAYLOAD_TOO_LARGE', 'Request is too large'],
  ['UNSUPPORTED_MEDIA_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'],
  [
    'AUTHORIZER_FAILURE',
    503,
    'SERVICE_UNAVAILABLE',
    'Authorization is temporarily unavailable; retry shortly',
  ],
  ['AUTHORIZER_CONFIGURATION_ERROR', 500, 'INTERNAL_ERROR', 'An internal error occurred'],
  ['INTEGRATION_FAILURE', 500, 'INTERNAL_ERROR', 'An internal error occurred'],
  ['INTEGRATION_TIMEOUT', 503, 'SERVICE_UNAVAILABLE', 'The service did not answer in time; retry shortly'],
  ['DEFAULT_4XX', 400, 'VALIDATION_FAILED', 'The request was rejected'],
  ['DEFAULT_5XX', 500, 'INTERNAL_ERROR', 'An internal error occurred'],
];

const EVERY_RESPONSE = {
  'gatewayresponse.header.Content-Type': "'application/json'",
  'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
  'gatewayresponse.header.Cache-Control': "'no-store'",
  // API Gateway's id of the request, the Error body's requestId.
  'gatewayresponse.header.Request-Id': 'context.requestId',
};

/** The answers that can follow an accepted key name the caller's plan, from the authorizer's context. */
const AFTER_AN_ACCEPTED_KEY = ['THROTTLED', 'QUOTA_EXCEEDED', 'INTEGRATION_FAILURE', 'INTEGRATION_TIMEOUT'];
const CALLER_PLAN = { 'gatewayresponse.header.RateLimit-Policy': 'context.authorizer.rateLimitPolicy' };

/** Seconds to wait, per type: a plan's quota resets at the next calendar day or month (UTC). */
const RETRY_AFTER: Readonly<Record<string, string>> = {
  THROTTLED: "'1'",
  QUOTA_EXCEEDED: "'3600'",
  AUTHORIZER_FAILURE: "'1'",
  INTEGRATION_TIMEOUT: "'1'",
};

/**
 * CORS on API Gateway's own answers, per stage: staging allows one origin, which every gateway
 * response names (a browser on it can read a 401); production allows none.
 */
const CORS_BY_STAGE: Readonly<Record<(typeof STAGE_NAMES)[number], Record<string, string>>> = {
  staging: {
    'gatewayresponse.header.Access-Control-Allow-Origin': "'http://localhost:5173'",
    'gatewayresponse.header.Access-Control-Expose-Headers':
      "'Link, Location, Deprecation, Sunset, Retry-After, Idempotent-Replayed, Request-Id, RateLimit-Policy'",
  },
  production: {},
};

describe.each(STAGE_NAMES)('%s gateway responses', (stageName) => {
  const template = templates[stageName];
  const EVERY_RESPONSE_OF_STAGE = { ...EVERY_RESPONSE, ...CORS_BY_STAGE[stageName] };
  const responses = new Map(
    resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').map(([, resource]) => {
      const properties = resource.Properties as unknown as GatewayResponseProperties;
      return [properties.ResponseType, properties];
    }),
  );

  it('maps exactly the documented response types, and no other', () => {
    expect([...responses.keys()].sort()).toEqual(DOCUMENTED.map(([type]) => type).sort());
  });

  it.each(DOCUMENTED)(
    'answers %s with %i and the Error object %s as application/json',
    (type, status, code, message) => {
      const response = responses.get(type);

      expect(response?.StatusCode).toBe(String(status));
      expect(Object.keys(response?.ResponseTemplates ?? {})).toEqual(['application/json']);
      expect(JSON.parse(response?.ResponseTemplates['application/json'] ?? '')).toEqual({
        code,
        message,
        status,
        requestId: '$context.requestId',
      });
    },
  );

  it.each(DOCUMENTED.filter(([, status]) => status !== 429 && status !== 503))(
    'sends %s as JSON that is neither sniffed nor cached, with its Request-Id and no Retry-After',
    (type) => {
      expect(responses.get(type)?.ResponseParameters).toEqual({
        ...EVERY_RESPONSE_OF_STAGE,
        ...(AFTER_AN_ACCEPTED_KEY.includes(type) ? CALLER_PLAN : {}),
      });
    },
  );

  it.each(DOCUMENTED.filter(([, status]) => status === 429 || status === 503))(
    'tells the client when to retry on %s',
    (type) => {
      expect(responses.get(type)?.ResponseParameters).toEqual({
        ...EVERY_RESPONSE_OF_STAGE,
        ...(AFTER_AN_ACCEPTED_KEY.includes(type) ? CALLER_PLAN : {}),
        'gatewayresponse.header.Retry-After': RETRY_AFTER[type],
      });
    },
  );

  it('says on every 429 whether a rate or a quota was exceeded, and names the plan', () => {
    const throttled = responses.get('THROTTLED');
    const quota = responses.get('QUOTA_EXCEEDED');

    expect([throttled?.StatusCode, quota?.StatusCode]).toEqual(['429', '429']);
    expect(JSON.parse(throttled?.ResponseTemplates['application/json'] ?? '').code).toBe('TOO_MANY_REQUESTS');
    expect(JSON.parse(quota?.ResponseTemplates['application/json'] ?? '').code).toBe('QUOTA_EXCEEDED');
    for (const response of [throttled, quota])
      expect(response?.ResponseParameters).toMatchObject(CALLER_PLAN);
  });

  it('answers a request the firewall blocked with 403 and the Error object FORBIDDEN', () => {
    const blocked = responses.get('WAF_FILTERED');

    expect(blocked?.StatusCode).toBe('403');
    expect(JSON.parse(blocked?.ResponseTemplates['application/json'] ?? '')).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
    });
  });
});
