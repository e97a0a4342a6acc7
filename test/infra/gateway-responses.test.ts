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
  ['THROTTLED', 429, 'TOO_MANY_REQUESTS', 'Too many requests; slow down and retry'],
  ['QUOTA_EXCEEDED', 429, 'TOO_MANY_REQUESTS', 'Request quota exceeded'],
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
};

/**
 * CORS on API Gateway's own answers, per stage: staging allows one origin, which every gateway
 * response names (a browser on it can read a 401); production allows none.
 */
const CORS_BY_STAGE: Readonly<Record<(typeof STAGE_NAMES)[number], Record<string, string>>> = {
  staging: {
    'gatewayresponse.header.Access-Control-Allow-Origin': "'http://localhost:5173'",
    'gatewayresponse.header.Access-Control-Expose-Headers':
      "'Link, Location, Deprecation, Sunset, Retry-After, Idempotent-Replayed'",
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
    'sends %s as JSON that is neither sniffed nor cached, with no Retry-After',
    (type) => {
      expect(responses.get(type)?.ResponseParameters).toEqual(EVERY_RESPONSE_OF_STAGE);
    },
  );

  it.each(DOCUMENTED.filter(([, status]) => status === 429 || status === 503))(
    'tells the client when to retry on %s: Retry-After 1',
    (type) => {
      expect(responses.get(type)?.ResponseParameters).toEqual({
        ...EVERY_RESPONSE_OF_STAGE,
        'gatewayresponse.header.Retry-After': "'1'",
      });
    },
  );
});
