import { describe, expect, it } from 'vitest';
import { RESOURCE_PATHS } from '#functions/operations';
import { STAGE_NAMES } from '#infra/stage-names';
import { synthStages } from '../support/pet-store-app';
import { type CfnResource, functionId, methodPath, resourcesOfType } from '../support/template-queries';

const { templates } = synthStages();

interface MockIntegration {
  Type: string;
  PassthroughBehavior: string;
  RequestTemplates: Record<string, string>;
  IntegrationResponses: {
    StatusCode: string;
    ResponseParameters: Record<string, string>;
    ResponseTemplates: Record<string, string>;
  }[];
}

const methodOn = (stage: (typeof STAGE_NAMES)[number], httpMethod: string, path: string): CfnResource => {
  const template = templates[stage];
  const [, method] =
    resourcesOfType(template, 'AWS::ApiGateway::Method').find(
      ([, candidate]) =>
        candidate.Properties.HttpMethod === httpMethod && methodPath(template, candidate) === path,
    ) ?? [];
  if (!method) throw new Error(`No ${httpMethod} ${path}`);
  return method;
};

describe.each(STAGE_NAMES)('%s CORS preflight', (stageName) => {
  it.each(RESOURCE_PATHS)('answers OPTIONS %s without a key, from a mock, with 204', (path) => {
    const method = methodOn(stageName, 'OPTIONS', path);
    const integration = method.Properties.Integration as MockIntegration;

    expect(method.Properties.AuthorizationType).toBe('NONE');
    expect(method.Properties).not.toHaveProperty('AuthorizerId');
    expect(integration.Type).toBe('MOCK');
    expect(integration.IntegrationResponses.map((response) => response.StatusCode)).toEqual(['204']);
  });
});

// What each mock answers each origin is rendered and compared with npm start in
// test/infra/gateway-answers.test.ts.
describe('staging (one allowed origin)', () => {
  it('tells the operations’ functions the allowed origin, and not the authorizer', () => {
    const template = templates.staging;
    const variables = (description: string) =>
      template.findResources('AWS::Lambda::Function')[functionId(template, description)]?.Properties
        .Environment.Variables as Record<string, unknown>;

    for (const description of [
      'GET /pets (listPets)',
      'POST /pets (createPet)',
      'GET /pets/{petId} (getPet)',
    ]) {
      expect(variables(description).PETSTORE_CORS_ORIGINS).toBe('http://localhost:5173');
    }
    expect(variables('TOKEN authorizer: Authorization: Bearer <API key>')).not.toHaveProperty(
      'PETSTORE_CORS_ORIGINS',
    );
  });
});

describe('production (no allowed origin)', () => {
  it('tells no function of any origin', () => {
    for (const [, fn] of resourcesOfType(templates.production, 'AWS::Lambda::Function')) {
      expect((fn.Properties.Environment as { Variables: object }).Variables).not.toHaveProperty(
        'PETSTORE_CORS_ORIGINS',
      );
    }
  });
});
