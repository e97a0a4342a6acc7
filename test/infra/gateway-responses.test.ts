import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '#infra/stages';
import { ERROR_STATUS } from '#shared/http/error-body';
import { GATEWAY_RESPONSES } from '#shared/http/gateway-responses';
import { synthStages } from '../support/pet-store-app';
import { resourcesOfType } from '../support/template-queries';

const { templates } = synthStages();

interface GatewayResponseProperties {
  ResponseType: string;
  StatusCode: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

describe.each(STAGE_NAMES)('%s gateway responses', (stageName) => {
  const template = templates[stageName];
  const responses = new Map(
    resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').map(([, resource]) => {
      const properties = resource.Properties as unknown as GatewayResponseProperties;
      return [properties.ResponseType, properties];
    }),
  );

  it('has one gateway response per row of the table, and no other', () => {
    expect([...responses.keys()].sort()).toEqual(Object.keys(GATEWAY_RESPONSES).sort());
  });

  it.each(Object.entries(GATEWAY_RESPONSES))(
    'answers %s with the status of its code and the Error object as application/json',
    (type, row) => {
      const response = responses.get(type);

      expect(response?.StatusCode).toBe(String(ERROR_STATUS[row.code]));
      expect(response?.ResponseParameters).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
      });
      expect(Object.keys(response?.ResponseTemplates ?? {})).toEqual(['application/json']);
      expect(JSON.parse(response?.ResponseTemplates['application/json'] ?? '')).toEqual({
        code: row.code,
        message: row.message,
        status: ERROR_STATUS[row.code],
        requestId: '$context.requestId',
      });
    },
  );

  it('returns 401 UNAUTHORIZED for a missing token and for an authorizer Deny alike', () => {
    for (const type of ['UNAUTHORIZED', 'ACCESS_DENIED']) {
      expect(responses.get(type)?.StatusCode).toBe('401');
      expect(JSON.parse(responses.get(type)?.ResponseTemplates['application/json'] ?? '').code).toBe(
        'UNAUTHORIZED',
      );
    }
  });

  it('returns 404 NOT_FOUND for a path API Gateway has no resource for', () => {
    const response = responses.get('MISSING_AUTHENTICATION_TOKEN');
    expect(response?.StatusCode).toBe('404');
    expect(JSON.parse(response?.ResponseTemplates['application/json'] ?? '').code).toBe('NOT_FOUND');
  });

  it('returns 429 TOO_MANY_REQUESTS when the stage throttles', () => {
    expect(responses.get('THROTTLED')?.StatusCode).toBe('429');
  });
});
