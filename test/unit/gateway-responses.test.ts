import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '#shared/http/gateway-behaviour';

/** The answers API Gateway gives itself, held to the codes and messages the API documents. */

describe("API Gateway's own answers", () => {
  it('are the documented code and message for each situation', () => {
    const unauthorized = {
      code: 'UNAUTHORIZED',
      message: 'A valid API key is required: send "Authorization: Bearer <key>"',
    };
    const internal = { code: 'INTERNAL_ERROR', message: 'An internal error occurred' };

    expect(GATEWAY_RESPONSES).toEqual({
      UNAUTHORIZED: unauthorized,
      ACCESS_DENIED: unauthorized,
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
      AUTHORIZER_CONFIGURATION_ERROR: internal,
      INTEGRATION_FAILURE: internal,
      INTEGRATION_TIMEOUT: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service did not answer in time; retry shortly',
      },
      DEFAULT_4XX: { code: 'VALIDATION_FAILED', message: 'The request was rejected' },
      DEFAULT_5XX: internal,
    });
  });
});
