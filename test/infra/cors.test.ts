import { describe, expect, it } from 'vitest';
import { RESOURCE_PATHS } from '#functions/operations';
import { MOCK_CONTENT_TYPES } from '#infra/constructs/gateway-answers';
import { STAGE_NAMES } from '#infra/stages';
import { synthStages } from '../support/pet-store-app';
import { type CfnResource, functionId, methodPath, resourcesOfType } from '../support/template-queries';

const { templates } = synthStages();

/** The template that answers an allowed origin only: staging allows http://localhost:5173. */
const allowedOnly = (headers: string) =>
  "#set($origin = $input.params().header.get('Origin'))" +
  `#if("$!origin" == "")#set($origin = $input.params().header.get('origin'))#end` +
  "#if($origin == 'http://localhost:5173')" +
  '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)' +
  headers +
  '#end';

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

const preflight = { '/pets': 'GET, POST', '/pets/{petId}': 'GET' } as const;

describe.each(STAGE_NAMES)('%s CORS preflight', (stageName) => {
  it.each(RESOURCE_PATHS)('answers OPTIONS %s without a key, from a mock, with 204', (path) => {
    const method = methodOn(stageName, 'OPTIONS', path);
    const integration = method.Properties.Integration as MockIntegration;

    expect(method.Properties.AuthorizationType).toBe('NONE');
    expect(method.Properties).not.toHaveProperty('AuthorizerId');
    expect(integration.Type).toBe('MOCK');
    expect(integration.PassthroughBehavior).toBe('NEVER');
    expect(Object.keys(integration.RequestTemplates)).toEqual([...MOCK_CONTENT_TYPES]);
    expect(integration.IntegrationResponses.map((response) => response.StatusCode)).toEqual(['204']);
  });
});

describe('staging (one allowed origin)', () => {
  it.each(RESOURCE_PATHS)(
    'answers a preflight on %s with the methods, headers and max age for http://localhost:5173 only',
    (path) => {
      const [response] = (methodOn('staging', 'OPTIONS', path).Properties.Integration as MockIntegration)
        .IntegrationResponses;

      expect(response?.ResponseParameters).toEqual({
        'method.response.header.X-Content-Type-Options': "'nosniff'",
        'method.response.header.Cache-Control': "'no-store'",
        'method.response.header.Vary': "'Origin'",
        'method.response.header.Request-Id': 'context.requestId',
      });
      expect(response?.ResponseTemplates['application/json']).toBe(
        allowedOnly(
          `#set($context.responseOverride.header.Access-Control-Allow-Methods = '${preflight[path]}')` +
            "#set($context.responseOverride.header.Access-Control-Allow-Headers = 'Authorization, Content-Type, Idempotency-Key')" +
            "#set($context.responseOverride.header.Access-Control-Max-Age = '7200')",
        ),
      );
    },
  );

  it.each(RESOURCE_PATHS)('lets http://localhost:5173 read the 405 of %s, and no other origin', (path) => {
    const [response] = (methodOn('staging', 'ANY', path).Properties.Integration as MockIntegration)
      .IntegrationResponses;
    const body = response?.ResponseTemplates['application/json'] ?? '';

    expect(body.slice(0, body.indexOf('{'))).toBe(
      allowedOnly(
        "#set($context.responseOverride.header.Access-Control-Expose-Headers = 'Link, Location, Deprecation, Sunset, Retry-After, Idempotent-Replayed, Request-Id, RateLimit-Policy')",
      ),
    );
  });

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
  it('sends no CORS header from any mock, and Vary neither', () => {
    for (const path of RESOURCE_PATHS) {
      for (const httpMethod of ['OPTIONS', 'ANY']) {
        const [response] = (
          methodOn('production', httpMethod, path).Properties.Integration as MockIntegration
        ).IntegrationResponses;
        const parameters = JSON.stringify(response?.ResponseParameters);
        const body = response?.ResponseTemplates['application/json'] ?? '';

        expect(parameters).not.toMatch(/Access-Control|Vary/);
        expect(body).not.toContain('responseOverride');
      }
    }
  });

  it('tells no function of any origin', () => {
    for (const [, fn] of resourcesOfType(templates.production, 'AWS::Lambda::Function')) {
      expect((fn.Properties.Environment as { Variables: object }).Variables).not.toHaveProperty(
        'PETSTORE_CORS_ORIGINS',
      );
    }
  });
});
