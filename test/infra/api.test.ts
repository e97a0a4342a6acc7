import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { allowedMethods, RESOURCE_PATHS, CONTRACTS as ROUTES } from '#functions/operations';
import { DATA_MODEL_CEILING_CREATES_PER_SECOND, STAGE_DEFAULTS, STAGE_NAMES } from '#infra/stages';
import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import { generateApiKey, IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { STAGE_NAME } from '#shared/http/paths';
import { DOCUMENTED_STAGES } from '../support/documented-stages';
import { synthStages } from '../support/pet-store-app';
import {
  functionId,
  liveAliasOf,
  methodPath,
  referencedIds,
  resourcesOfType,
} from '../support/template-queries';

const { templates } = synthStages();

const AUTHORIZER_DESCRIPTION = 'TOKEN authorizer: Authorization: Bearer <API key>';

describe.each(STAGE_NAMES)('%s API', (stageName) => {
  const template = templates[stageName];
  const stage = DOCUMENTED_STAGES[stageName];
  const methods = resourcesOfType(template, 'AWS::ApiGateway::Method');

  it('is one REGIONAL REST API', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it(`is deployed as stage ${STAGE_NAME} with the stage's throttling, X-Ray tracing and error logging`, () => {
    template.resourceCountIs('AWS::ApiGateway::Stage', 1);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v1',
      TracingEnabled: true,
      MethodSettings: [
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: stage.throttling.rateLimit,
          ThrottlingBurstLimit: stage.throttling.burstLimit,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        },
      ],
    });
  });

  it('writes one JSON access log line per request, naming the key id, to a log group with the stage retention', () => {
    const [, stageResource] = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0] ?? [];
    const settings = stageResource?.Properties.AccessLogSetting as {
      Format: string;
      DestinationArn: unknown;
    };
    // Rendered with hostile values in test/http/gateway-answers.test.ts.
    expect(settings.Format).toContain('"requestId":"$context.extendedRequestId"');
    expect(settings.Format).toContain('"keyId":"$context.authorizer.principalId"');
    expect(settings.Format).toContain('"errorMessage":$context.error.messageString');
    const [logGroupId] = [...referencedIds(settings.DestinationArn)];
    expect(template.findResources('AWS::Logs::LogGroup')[logGroupId ?? '']?.Properties).toEqual({
      RetentionInDays: stage.logRetentionDays,
    });
  });

  it("routes every operation of the route table to its own function's live alias through a Lambda proxy integration", () => {
    const served = methods
      .filter(([, method]) => !['ANY', 'OPTIONS'].includes(String(method.Properties.HttpMethod)))
      .map(([, method]) => ({
        method: method.Properties.HttpMethod,
        path: methodPath(template, method),
        type: (method.Properties.Integration as { Type: string }).Type,
        // An array, not a Set: toContainEqual does not compare the members of a Set inside an object.
        targets: [...referencedIds((method.Properties.Integration as { Uri: unknown }).Uri)],
        operationName: method.Properties.OperationName,
      }));

    expect(served).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const fn = functionId(template, `${route.method} ${route.path} (${route.operationId})`);
      expect(served).toContainEqual({
        method: route.method,
        path: route.path,
        type: 'AWS_PROXY',
        targets: [liveAliasOf(template, fn)],
        operationName: route.operationId,
      });
    }
  });

  // What the 405 mocks answer is rendered and compared with npm start in test/http/gateway-answers.test.ts.
  it.each(RESOURCE_PATHS)('answers other methods on %s from an ANY mock', (path) => {
    const [, any] =
      methods.find(
        ([, method]) => method.Properties.HttpMethod === 'ANY' && methodPath(template, method) === path,
      ) ?? [];

    expect(any?.Properties.Integration).toMatchObject({ Type: 'MOCK' });
    expect(allowedMethods(path).length).toBeGreaterThan(0);
  });

  it('puts every method but the CORS preflights, the 405 mocks included, behind the TOKEN authorizer', () => {
    const [[authorizerId]] = [Object.keys(template.findResources('AWS::ApiGateway::Authorizer'))];
    const keyed = methods.filter(([, method]) => method.Properties.HttpMethod !== 'OPTIONS');
    expect(keyed).toHaveLength(ROUTES.length + RESOURCE_PATHS.length);
    for (const [, method] of keyed) {
      expect(method.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
      });
    }
  });

  it("leaves API Gateway's account-wide CloudWatch role to the one-time set-up, so no stage races or overwrites it", () => {
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it(`is a TOKEN authorizer on the Authorization header, refusing malformed headers itself, cached for ${stage.authorizerCacheTtlSeconds} s, calling the authorizer's live alias`, () => {
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    const [, authorizer] = resourcesOfType(template, 'AWS::ApiGateway::Authorizer')[0] ?? [];
    expect(authorizer?.Properties).toMatchObject({
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: IDENTITY_VALIDATION_EXPRESSION,
      AuthorizerResultTtlInSeconds: stage.authorizerCacheTtlSeconds,
    });
    expect(referencedIds(authorizer?.Properties.AuthorizerUri)).toEqual(
      new Set([liveAliasOf(template, functionId(template, AUTHORIZER_DESCRIPTION))]),
    );
  });

  it('refuses, by the expression in the template, a 5,000-character token before the authorizer runs, and passes an issued key', () => {
    const [, authorizer] = resourcesOfType(template, 'AWS::ApiGateway::Authorizer')[0] ?? [];
    const expression = new RegExp(String(authorizer?.Properties.IdentityValidationExpression));
    expect(expression.test(`Bearer psk_${'A'.repeat(4_996)}`)).toBe(false);
    expect(expression.test(`Bearer psk_x${'='.repeat(4_995)}`)).toBe(false);
    expect(expression.test(`Bearer ${generateApiKey('template').key}`)).toBe(true);
  });

  it("lets API Gateway invoke the authorizer's live alias", () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { Ref: liveAliasOf(template, functionId(template, AUTHORIZER_DESCRIPTION)) },
      SourceArn: Match.anyValue(),
    });
  });
});

describe('key revocation', () => {
  it.each([
    ['production', 60],
    ['staging', 30],
  ] as const)(
    'caches authorizer decisions in %s for %i s, so a revoked key stops working within 60 s',
    (stageName, ttl) => {
      const [, authorizer] = resourcesOfType(templates[stageName], 'AWS::ApiGateway::Authorizer')[0] ?? [];

      expect(authorizer?.Properties.AuthorizerResultTtlInSeconds).toBe(ttl);
      expect(ttl).toBeLessThanOrEqual(60);
    },
  );
});

describe('stage differences', () => {
  it('throttles production at 2,000 requests a second (burst 4,000), staging at 20 (burst 40)', () => {
    const throttling = (stageName: (typeof STAGE_NAMES)[number]) => {
      const [, stage] = resourcesOfType(templates[stageName], 'AWS::ApiGateway::Stage')[0] ?? [];
      const settings = (
        stage?.Properties.MethodSettings as
          | { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }[]
          | undefined
      )?.[0];
      return [settings?.ThrottlingRateLimit, settings?.ThrottlingBurstLimit];
    };

    expect(throttling('production')).toEqual([2_000, 4_000]);
    expect(throttling('staging')).toEqual([20, 40]);
  });

  it("keeps production's busiest second, were every request a create, under half the data model's ceiling", () => {
    const { rateLimit, burstLimit } = STAGE_DEFAULTS.production.throttling;
    // One status shard's partition key takes 1/16 of the creates at 1 WCU each: 16 × 1,000 a second.
    const ceiling = STATUS_SHARDS * 1_000;

    expect(DATA_MODEL_CEILING_CREATES_PER_SECOND).toBe(ceiling);
    expect(rateLimit + burstLimit).toBeLessThanOrEqual(ceiling / 2);
    // API Gateway's default quota per account and region, shared by every stage there.
    const stages = Object.values(STAGE_DEFAULTS);
    expect(stages.reduce((sum, stage) => sum + stage.throttling.rateLimit, 0)).toBeLessThanOrEqual(10_000);
    expect(Math.max(...stages.map((stage) => stage.throttling.burstLimit))).toBeLessThanOrEqual(5_000);
  });
});
