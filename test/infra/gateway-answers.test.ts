import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowedMethods, RESOURCE_PATHS } from '#functions/operations';
import { ACCESS_LOG_FORMAT_TEXT } from '#infra/access-log';
import { STAGE_NAMES, type StageName } from '#infra/stage-names';
import { STAGE_DEFAULTS } from '#infra/stages';
import { generateApiKey } from '#shared/auth/api-key';
import {
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  MOCK_CONTENT_TYPES,
} from '#shared/http/gateway-behaviour';
import { HTTP_METHODS } from '#shared/operations/operation';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import { sendRefusal } from '#tools/local/http-io';
import { apiGatewayUtil, HOSTILE, hostileContext, renderTemplate } from '../support/api-gateway-vtl';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { synthStages } from '../support/pet-store-app';
import { ROOMY_POLICY } from '../support/plans';
import { apiKeysOf } from '../support/tables';
import { type CfnResource, methodPath, resourcesOfType } from '../support/template-queries';

/**
 * Every mapping template and gateway response the stack synthesizes, rendered by a real VTL
 * engine with API Gateway's `$context`, `$input` and `$util`, every value a client controls made
 * hostile: each is valid JSON carrying the Error fields and the request id API Gateway generated.
 * Then, for each of API Gateway's own answers, `npm start` answers what the rendered template says:
 * status, headers and body, the request id aside.
 */

const { templates } = synthStages();

interface GatewayResponseProperties {
  ResponseType: string;
  StatusCode: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

interface MockIntegration {
  Type: string;
  RequestTemplates: Record<string, string>;
  IntegrationResponses: {
    StatusCode: string;
    ResponseParameters: Record<string, string>;
    ResponseTemplates: Record<string, string>;
  }[];
}

const ALLOWED = 'http://localhost:5173';
const OTHER = 'https://elsewhere.example';
/** What a request can say of its origin: an allowed one, another, a hostile one, none. */
const ORIGINS = [ALLOWED, OTHER, HOSTILE, undefined] as const;

const gatewayResponsesOf = (stage: StageName) =>
  new Map(
    resourcesOfType(templates[stage], 'AWS::ApiGateway::GatewayResponse').map(([, resource]) => {
      const properties = resource.Properties as unknown as GatewayResponseProperties;
      return [properties.ResponseType as GatewayResponseType, properties];
    }),
  );

const mockOf = (stage: StageName, httpMethod: string, path: string): MockIntegration => {
  const [, method] =
    resourcesOfType(templates[stage], 'AWS::ApiGateway::Method').find(
      ([, candidate]: [string, CfnResource]) =>
        candidate.Properties.HttpMethod === httpMethod && methodPath(templates[stage], candidate) === path,
    ) ?? [];
  if (!method) throw new Error(`No ${httpMethod} ${path}`);
  return method.Properties.Integration as MockIntegration;
};

/** A parameter mapping's value for a request: a literal, a request header, or a context variable. */
const resolve = (
  source: string,
  request: { headers: Record<string, string>; context: Record<string, unknown> },
): string | undefined => {
  if (source.startsWith("'")) return source.slice(1, -1);
  const header = /^method\.request\.header\.(.+)$/.exec(source)?.[1];
  if (header) return request.headers[header];
  const variable = /^context\.(.+)$/.exec(source)?.[1];
  if (variable)
    return variable
      .split('.')
      .reduce<unknown>(
        (value, key) => (value as Record<string, unknown> | undefined)?.[key],
        request.context,
      ) as string | undefined;
  throw new Error(`A mapping API Gateway does not document here: ${source}`);
};

/** The headers a set of `<prefix>.header.<name>` mappings gives a request, by lower-case name. */
const mappedHeaders = (
  parameters: Record<string, string>,
  prefix: string,
  request: { headers: Record<string, string>; context: Record<string, unknown> },
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(parameters).flatMap(([target, source]) => {
      const value = resolve(source, request);
      return value === undefined ? [] : [[target.slice(`${prefix}.header.`.length).toLowerCase(), value]];
    }),
  );

const lowerCased = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/** An answer as the comparison sees it: status, headers API-level, body with the request id set aside. */
interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** What a gateway response's templates say API Gateway answers a request. */
const renderedGatewayResponse = (
  response: GatewayResponseProperties,
  headers: Record<string, string>,
  requestId: string,
): Answer => {
  const context = { ...hostileContext(requestId), responseOverride: { header: {}, status: undefined } };
  const { output } = renderTemplate(response.ResponseTemplates['application/json'] ?? '', context, {
    headers,
  });
  return {
    status: Number(response.StatusCode),
    headers: mappedHeaders(response.ResponseParameters, 'gatewayresponse', { headers, context }),
    body: JSON.parse(output),
  };
};

describe.each(STAGE_NAMES)('%s, rendered by a VTL engine with hostile values', (stage) => {
  const responses = gatewayResponsesOf(stage);

  it("configures a gateway response for every type of API Gateway's, so no fallback changes another's status", () => {
    expect([...responses.keys()].sort()).toEqual(Object.keys(GATEWAY_RESPONSES).sort());
  });

  it.each([...gatewayResponsesOf(stage).keys()])(
    'renders the %s gateway response as the Error object, with the request id API Gateway generated',
    (type) => {
      const response = responses.get(type) as GatewayResponseProperties;
      const requestId = 'ZjyqcFWuvHcFSOA=';

      for (const origin of ORIGINS) {
        const { status, body } = renderedGatewayResponse(
          response,
          origin ? { Origin: origin, 'X-Amzn-RequestId': HOSTILE } : {},
          requestId,
        );
        expect(body).toEqual({ ...GATEWAY_RESPONSES[type], status, requestId });
      }
      expect(Object.keys(response.ResponseTemplates)).toEqual(['application/json']);
      // Only request parameters and literals: what AWS documents a gateway response's headers take.
      for (const source of Object.values(response.ResponseParameters))
        expect(source).toMatch(/^('[^']*'|method\.request\.header\.[A-Za-z-]+)$/);
    },
  );

  it.each(RESOURCE_PATHS.flatMap((path) => [['ANY', path] as const, ['OPTIONS', path] as const]))(
    'renders the %s mock on %s: every request template to its status, its answer to JSON whatever the Origin',
    (httpMethod, path) => {
      const mock = mockOf(stage, httpMethod, path);
      const [response] = mock.IntegrationResponses;
      const context = hostileContext();

      expect(mock.Type).toBe('MOCK');
      expect(Object.keys(mock.RequestTemplates).sort()).toEqual([...MOCK_CONTENT_TYPES].sort());
      for (const template of Object.values(mock.RequestTemplates)) {
        const { output } = renderTemplate(template, context, {
          body: HOSTILE,
          headers: { 'Content-Type': HOSTILE },
        });
        expect(JSON.parse(output)).toEqual({ statusCode: Number(response?.StatusCode) });
      }
      for (const origin of ORIGINS) {
        const headers: Record<string, string> = origin ? { Origin: origin } : {};
        const rendered = renderTemplate(response?.ResponseTemplates['application/json'] ?? '', context, {
          headers,
        });
        const body = rendered.output === '' ? undefined : JSON.parse(rendered.output);
        if (httpMethod === 'ANY') {
          expect(body).toMatchObject({
            code: 'METHOD_NOT_ALLOWED',
            status: 405,
            requestId: context.extendedRequestId,
          });
        } else {
          expect(body).toBeUndefined();
        }
        const allowed = origin !== undefined && STAGE_DEFAULTS[stage].allowedOrigins.includes(origin);
        expect(rendered.headerOverrides['Access-Control-Allow-Origin']).toBe(allowed ? origin : undefined);
      }
      expect(
        mappedHeaders(response?.ResponseParameters ?? {}, 'method.response', { headers: {}, context }),
      ).toMatchObject({
        'request-id': context.extendedRequestId,
      });
    },
  );

  it('writes one access log line that parses as JSON whatever the client sent', () => {
    const context = hostileContext();
    const values: Record<string, string> = {
      '$context.error.messageString': context.error.messageString,
      '$context.extendedRequestId': context.extendedRequestId,
      '$context.httpMethod': context.httpMethod,
      '$context.identity.sourceIp': context.identity.sourceIp,
      '$context.requestTime': context.requestTime,
      '$context.resourcePath': context.resourcePath,
      '$context.error.responseType': context.error.responseType,
    };
    // Numbers, ids and states API Gateway writes: `-` where a request has none.
    const generated =
      /^\$context\.(apiId|status|responseLength|responseLatency|integrationLatency|integrationStatus|authorizer\.(latency|status|requestId|principalId|scopes))$/;

    const line = ACCESS_LOG_FORMAT_TEXT.replace(/\$context\.[A-Za-z.]+/g, (variable) => {
      if (variable in values) return values[variable] as string;
      if (generated.test(variable))
        return variable === '$context.authorizer.principalId' ? 'key-1a2b3c4d5e6f' : '-';
      // Anything else could be a client's: it must not be there.
      throw new Error(`${variable} is in the access log; is it a value a client can fill?`);
    });

    expect(JSON.parse(line)).toMatchObject({ requestId: context.extendedRequestId, errorMessage: HOSTILE });
  });
});

describe('$util as AWS documents it (for a template that would use it)', () => {
  it("escapes ' as \\', which a JSON string refuses: no template may put it inside JSON", () => {
    const escaped = apiGatewayUtil.escapeJavaScript(`it's "x"`);

    expect(escaped).toBe(`it\\'s \\"x\\"`);
    expect(() => JSON.parse(`"${escaped}"`)).toThrow();
  });
});

describe.each(STAGE_NAMES)(
  'npm start, configured as %s, answers what the rendered template says',
  (stage) => {
    const origins = STAGE_DEFAULTS[stage].allowedOrigins;
    const responses = gatewayResponsesOf(stage);
    let refusals: Server;
    let refusalsUrl: string;
    let local: LocalApi;

    beforeAll(async () => {
      // The local gateway's own writer of a gateway response, for every type (most cannot be provoked).
      refusals = createServer((request, response) => {
        const type = (request.url ?? '').slice(1) as GatewayResponseType;
        const origin = request.headers.origin;
        sendRefusal(response, GatewayRefusal.of(type), 'ZjyqcFWuvHcFSOA=', { allowed: origins, origin });
      });
      await new Promise<void>((listening) => refusals.listen(0, '127.0.0.1', listening));
      refusalsUrl = `http://127.0.0.1:${(refusals.address() as AddressInfo).port}`;
      local = await startLocalApi(`gateway-answers-${stage}`, { corsOrigins: origins });
    });
    afterAll(async () => {
      await new Promise<void>((closed) => refusals.close(() => closed()));
      await local?.close();
    });

    /** A local answer, the request id set aside: it must be the same in body, Request-Id and x-amz-apigw-id. */
    const answerOf = async (response: Response): Promise<Answer & { requestId: string }> => {
      const headers = Object.fromEntries(response.headers);
      const requestId = headers['x-amz-apigw-id'] ?? '';
      const text = await response.text();
      const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
      expect(requestId).toMatch(/^[A-Za-z0-9+/]{15}=$/);
      if (body) expect(body.requestId).toBe(requestId);
      if (headers['request-id']) expect(headers['request-id']).toBe(requestId);
      for (const transport of [
        'date',
        'connection',
        'keep-alive',
        'content-length',
        'transfer-encoding',
        'x-amz-apigw-id',
      ])
        delete headers[transport];
      return { status: response.status, headers, body, requestId };
    };

    it.each([...gatewayResponsesOf(stage).keys()])(
      'answers %s as its gateway response says',
      async (type) => {
        for (const origin of [ALLOWED, OTHER, undefined]) {
          const headers: Record<string, string> = origin ? { Origin: origin } : {};
          const local = await answerOf(await fetch(`${refusalsUrl}/${type}`, { headers }));
          const rendered = renderedGatewayResponse(
            responses.get(type) as GatewayResponseProperties,
            headers,
            local.requestId,
          );

          expect(local).toEqual({ ...rendered, requestId: local.requestId });
        }
      },
    );

    const mockAnswer = (
      httpMethod: string,
      path: string,
      headers: Record<string, string>,
      requestId: string,
    ): Answer => {
      const [response] = mockOf(stage, httpMethod, path).IntegrationResponses;
      const context = {
        ...hostileContext(requestId),
        authorizer: { rateLimitPolicy: ROOMY_POLICY },
        responseOverride: { header: {}, status: undefined },
      };
      const rendered = renderTemplate(response?.ResponseTemplates['application/json'] ?? '', context, {
        headers,
      });
      return {
        status: Number(response?.StatusCode),
        headers: {
          ...mappedHeaders(response?.ResponseParameters ?? {}, 'method.response', { headers, context }),
          ...lowerCased(rendered.headerOverrides),
        },
        body: rendered.output === '' ? undefined : JSON.parse(rendered.output),
      };
    };

    it.each(RESOURCE_PATHS)(
      'answers another method on %s as the 405 mock says, whatever the Origin',
      async (path) => {
        const url = `${local.gateway.baseUrl}${path.replace('{petId}', '7')}`;
        for (const origin of [ALLOWED, OTHER, undefined]) {
          const headers = { Authorization: `Bearer ${local.apiKey}`, ...(origin ? { Origin: origin } : {}) };
          const method = HTTP_METHODS.find((candidate) => !allowedMethods(path).includes(candidate));
          const answer = await answerOf(await fetch(url, { method, headers }));

          expect(answer).toEqual({
            ...mockAnswer('ANY', path, headers, answer.requestId),
            requestId: answer.requestId,
          });
        }
      },
    );

    it.each(RESOURCE_PATHS)(
      'answers a preflight on %s as the OPTIONS mock says, whatever the Origin',
      async (path) => {
        const url = `${local.gateway.baseUrl}${path.replace('{petId}', '7')}`;
        for (const origin of [ALLOWED, OTHER, undefined]) {
          const headers: Record<string, string> = {
            'Access-Control-Request-Method': 'GET',
            ...(origin ? { Origin: origin } : {}),
          };
          const answer = await answerOf(await fetch(url, { method: 'OPTIONS', headers }));

          expect(answer).toEqual({
            ...mockAnswer('OPTIONS', path, headers, answer.requestId),
            requestId: answer.requestId,
          });
        }
      },
    );

    it("answers a method outside the key's scopes as the ACCESS_DENIED gateway response says, whatever the Origin", async () => {
      const { key, record } = generateApiKey('reader');
      await apiKeysOf(local.tables).put({ ...record, scopes: ['read:pets'] });
      for (const origin of [ALLOWED, OTHER, undefined]) {
        const headers = {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          ...(origin ? { Origin: origin } : {}),
        };
        const refused = await answerOf(
          await fetch(`${local.gateway.baseUrl}/pets`, { method: 'POST', headers, body: '{"name":"Rex"}' }),
        );

        expect(refused).toEqual({
          ...renderedGatewayResponse(
            responses.get('ACCESS_DENIED') as GatewayResponseProperties,
            headers,
            refused.requestId,
          ),
          requestId: refused.requestId,
        });
        expect(refused.status).toBe(403);
      }
    });

    it('answers a mock a content type it has no template for as API Gateway does: its 415 gateway response', async () => {
      const headers = { Authorization: `Bearer ${local.apiKey}`, 'Content-Type': 'text/csv' };
      const refused = await answerOf(
        await fetch(`${local.gateway.baseUrl}/pets`, { method: 'PUT', headers, body: 'a,b' }),
      );
      const withParameters = await fetch(`${local.gateway.baseUrl}/pets`, {
        method: 'PUT',
        headers: { ...headers, 'Content-Type': 'Application/JSON; charset=utf-8' },
        body: '{}',
      });

      expect(Object.keys(mockOf(stage, 'ANY', '/pets').RequestTemplates)).not.toContain('text/csv');
      expect(refused).toEqual({
        ...renderedGatewayResponse(
          responses.get('UNSUPPORTED_MEDIA_TYPE') as GatewayResponseProperties,
          {},
          refused.requestId,
        ),
        requestId: refused.requestId,
      });
      expect(withParameters.status).toBe(405);
    });
  },
);
