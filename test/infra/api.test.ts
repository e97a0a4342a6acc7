import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { allowedMethods, RESOURCE_PATHS, CONTRACTS as ROUTES } from '#functions/operations';
import { STAGE_NAMES } from '#infra/stage-names';
import { DATA_MODEL_CEILING_CREATES_PER_SECOND, STAGE_DEFAULTS } from '#infra/stages';
import { STATUS_SHARDS } from '#shared/adapters/dynamodb/table-design';
import { generateApiKey, IDENTITY_VALIDATION_EXPRESSION } from '#shared/auth/api-key';
import { STAGE_NAME } from '#shared/http/paths';
import { writesData } from '#shared/operations/routes';
import { LOCAL_AUTHORIZER_CACHE_TTL_MS } from '#tools/local/gateway';
import { THROTTLE_TABLE } from '#tools/openapi/throttle-table';
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

interface MethodSetting {
  readonly ResourcePath: string;
  readonly HttpMethod: string;
  readonly ThrottlingRateLimit: number;
  readonly ThrottlingBurstLimit: number;
}

interface MethodThrottle {
  readonly path: string;
  readonly httpMethod: string;
  /** `AWS_PROXY` for an operation's function, `MOCK` for API Gateway's own answers. */
  readonly integration: string;
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Every method of the stage with the throttle API Gateway applies to it: its own method setting,
 * else the stage's default (`/*`, `*`), which API Gateway applies to each method, not to the stage
 * as a whole ("Throttle requests to your REST APIs for better throughput in API Gateway").
 */
const methodThrottles = (template: Template): MethodThrottle[] => {
  const [, stage] = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0] ?? [];
  const settings = (stage?.Properties.MethodSettings ?? []) as MethodSetting[];
  const settingOf = (path: string, httpMethod: string): MethodSetting | undefined =>
    settings.find(
      (setting) =>
        setting.ResourcePath === `/${path.replaceAll('/', '~1')}` && setting.HttpMethod === httpMethod,
    ) ?? settings.find((setting) => setting.ResourcePath === '/*' && setting.HttpMethod === '*');
  return resourcesOfType(template, 'AWS::ApiGateway::Method').map(([, method]) => {
    const path = methodPath(template, method);
    const httpMethod = String(method.Properties.HttpMethod);
    const setting = settingOf(path, httpMethod);
    return {
      path,
      httpMethod,
      integration: String((method.Properties.Integration as { Type?: string } | undefined)?.Type),
      rateLimit: Number(setting?.ThrottlingRateLimit),
      burstLimit: Number(setting?.ThrottlingBurstLimit),
    };
  });
};

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** What the stage admits, every method at its limit: the real bound of the stage's throttle. */
const throttleBounds = (template: Template) => {
  const methods = methodThrottles(template);
  const functions = methods.filter((method) => method.integration === 'AWS_PROXY');
  const writes = functions.filter((method) => writesData({ method: method.httpMethod as 'POST' }));
  return {
    stageRate: sum(methods.map((method) => method.rateLimit)),
    functionRate: sum(functions.map((method) => method.rateLimit)),
    writeRate: sum(writes.map((method) => method.rateLimit)),
    writesBusiestSecond: sum(writes.map((method) => method.rateLimit + method.burstLimit)),
  };
};

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
      MethodSettings: Match.arrayWith([
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: stage.throttling.rateLimit,
          ThrottlingBurstLimit: stage.throttling.burstLimit,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        },
      ]),
    });
  });

  it('logs errors of every method, each write method that overrides the stage too, never full requests', () => {
    const [, stageResource] = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0] ?? [];
    const settings = (stageResource?.Properties.MethodSettings ?? []) as Record<string, unknown>[];

    expect(settings.length).toBe(1 + ROUTES.filter(writesData).length);
    for (const setting of settings) {
      expect(setting, `${setting.HttpMethod} ${setting.ResourcePath}`).toMatchObject({
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      });
    }
  });

  it("throttles each write method (POST, PATCH, DELETE) at the stage's lower write limit, every other method at the stage's default", () => {
    const throttles = methodThrottles(template);
    const writes = ROUTES.filter(writesData).map((route) => `${route.method} ${route.path}`);

    expect(writes.length).toBeGreaterThan(0);
    expect(throttles.filter((method) => method.integration === 'AWS_PROXY').length).toBe(ROUTES.length);
    for (const method of throttles) {
      const expected = writes.includes(`${method.httpMethod} ${method.path}`)
        ? stage.writeThrottling
        : stage.throttling;
      expect([method.rateLimit, method.burstLimit], `${method.httpMethod} ${method.path}`).toEqual([
        expected.rateLimit,
        expected.burstLimit,
      ]);
    }
  });

  it('writes one JSON access log line per request, naming the key id, to a log group with the stage retention', () => {
    const [, stageResource] = resourcesOfType(template, 'AWS::ApiGateway::Stage')[0] ?? [];
    const settings = stageResource?.Properties.AccessLogSetting as {
      Format: string;
      DestinationArn: unknown;
    };
    // Rendered with hostile values in test/infra/gateway-answers.test.ts.
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

  // What the 405 mocks answer is rendered and compared with npm start in test/infra/gateway-answers.test.ts.
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
    // npm start holds each request to its token's cached decision at least as long as this stage caches it.
    expect(stage.authorizerCacheTtlSeconds * 1_000).toBeLessThanOrEqual(LOCAL_AUTHORIZER_CACHE_TTL_MS);
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
  it("throttles each of production's methods at 2,000 requests a second (burst 4,000), a write at 1,000 (burst 1,000); staging's at 20 (burst 40), writes too", () => {
    const limits = (stageName: (typeof STAGE_NAMES)[number]) =>
      [
        ...new Set(
          methodThrottles(templates[stageName]).map((method) => `${method.rateLimit}/${method.burstLimit}`),
        ),
      ].sort();

    expect(limits('production')).toEqual(['1000/1000', '2000/4000']);
    expect(limits('staging')).toEqual(['20/40']);
  });

  it("keeps production's busiest second of writes, every write method at rate + burst, under half the data model's ceiling", () => {
    // One status shard's partition key takes 1/16 of the creates at 1 WCU each: 16 × 1,000 a second.
    const ceiling = STATUS_SHARDS * 1_000;

    expect(DATA_MODEL_CEILING_CREATES_PER_SECOND).toBe(ceiling);
    expect(throttleBounds(templates.production).writesBusiestSecond).toBeLessThanOrEqual(ceiling / 2);
  });

  it("keeps each method within API Gateway's default account quota (10,000 a second, burst 5,000), which bounds production as a whole", () => {
    for (const stageName of STAGE_NAMES)
      for (const method of methodThrottles(templates[stageName])) {
        expect(method.rateLimit).toBeLessThanOrEqual(10_000);
        expect(method.burstLimit).toBeLessThanOrEqual(5_000);
      }
    // Every method at its limit, production admits more than the account quota: the quota binds first.
    expect(throttleBounds(templates.production).stageRate).toBeGreaterThan(10_000);
    expect(STAGE_DEFAULTS.production.throttling.rateLimit).toBeLessThan(10_000);
  });

  it("gives docs/deploy.md the throttle's real bounds as this template computes them, methods × each one's limit", () => {
    const deploy = THROTTLE_TABLE.read();
    const figure = (value: number) => value.toLocaleString('en-US');
    const row = (label: string, values: readonly string[]) => `| ${label} | ${values.join(' | ')} |`;
    const bounds = STAGE_NAMES.map((name) => throttleBounds(templates[name]));

    // The table npm run openapi writes from the list and the stages is the one in the document…
    expect(THROTTLE_TABLE.update(deploy, ROUTES)).toBe(deploy);
    // …and it says what the synthesized templates admit.
    expect(deploy).toContain(
      row(
        'Requests a second the stage admits',
        bounds.map((b) => figure(b.stageRate)),
      ),
    );
    expect(deploy).toContain(
      row(
        "Requests a second to the operations' functions",
        bounds.map((b) => figure(b.functionRate)),
      ),
    );
    expect(deploy).toContain(
      row(
        'Invocations at once, at 25 ms each',
        bounds.map((b) => figure(Math.ceil((b.functionRate * 25) / 1_000))),
      ),
    );
    for (const b of bounds) {
      expect(deploy).toContain(` ${figure(b.writeRate)}, ${figure(b.writeRate * 2)} |`);
      expect(deploy).toContain(` ${figure(b.writesBusiestSecond)}, `);
    }
  });
});
