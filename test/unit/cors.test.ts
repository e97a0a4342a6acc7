import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '#functions/operations';
import { corsOverrideTemplate, gatewayResponseValue } from '#infra/constructs/gateway-answers';
import { parseAllowedOrigins } from '#shared/allowed-origins';
import { ConfigError, readFunctionConfig } from '#shared/config';
import { singleOrigin } from '#shared/http/cors';
import { deprecationHeaders } from '#shared/http/deprecation';
import {
  answerHeaders,
  corsAllowedHeaders,
  corsExposedHeaders,
  corsHeaders,
  exposing,
  gatewayResponse,
  gatewayResponseCorsHeaders,
  preflight,
} from '#shared/http/gateway-behaviour';
import { retryHeaders } from '#shared/http/retry';
import { type Operation, requestHeaderNames } from '#shared/operations/operation';

describe('allowed origins', () => {
  it('reads a comma-separated list, ignoring blanks and repeats', () => {
    expect(
      parseAllowedOrigins(' https://app.example.com, http://localhost:5173 ,,https://app.example.com'),
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(parseAllowedOrigins('')).toEqual([]);
    expect(parseAllowedOrigins('*')).toEqual(['*']);
  });

  it.each([
    ['a path', 'https://app.example.com/'],
    ['upper case', 'https://App.example.com'],
    ['the default port', 'https://app.example.com:443'],
    ['another scheme', 'ftp://app.example.com'],
    ['no scheme', 'app.example.com'],
    ['a wildcard beside origins', '*, https://app.example.com'],
  ])('refuses an origin with %s, which no browser would send', (_case, text) => {
    expect(() => parseAllowedOrigins(text)).toThrow();
  });

  it('are read by a function from PETSTORE_CORS_ORIGINS, none when unset, a ConfigError when wrong', () => {
    const tables = { PETS_TABLE_NAME: 'pets' };

    expect(readFunctionConfig(['pets'], tables).corsOrigins).toBeUndefined();
    expect(
      readFunctionConfig(['pets'], { ...tables, PETSTORE_CORS_ORIGINS: 'http://localhost:5173' }).corsOrigins,
    ).toEqual(['http://localhost:5173']);
    expect(() => readFunctionConfig(['pets'], { ...tables, PETSTORE_CORS_ORIGINS: 'localhost' })).toThrow(
      ConfigError,
    );
  });
});

describe("a request's origin", () => {
  it('is its one Origin, never one repeated or holding a list', () => {
    expect(singleOrigin(['http://a.example'])).toBe('http://a.example');
    expect(singleOrigin([])).toBeUndefined();
    expect(singleOrigin(['http://a.example', 'http://a.example'])).toBeUndefined();
    expect(singleOrigin(['http://a.example, http://b.example'])).toBeUndefined();
    expect(singleOrigin(['http://a.example http://b.example'])).toBeUndefined();
  });
});

/** What API Gateway's own answers let a page read: the headers any answer may carry. */
const GATEWAY_EXPOSED = 'Retry-After, Request-Id, RateLimit-Policy, x-amz-apigw-id';

describe('CORS headers of an answer', () => {
  const allowed = ['http://localhost:5173'];
  const granted = exposing(['Link', 'Request-Id']);

  it('name an allowed origin and expose the headers the answer grants', () => {
    expect(corsHeaders(allowed, 'http://localhost:5173', granted)).toEqual({
      Vary: 'Origin',
      'Access-Control-Allow-Origin': 'http://localhost:5173',
      'Access-Control-Expose-Headers': 'Link, Request-Id',
    });
  });

  it('are only Vary for another origin or none, and nothing at all when no origin is allowed', () => {
    expect(corsHeaders(allowed, 'https://evil.example', granted)).toEqual({ Vary: 'Origin' });
    expect(corsHeaders(allowed, undefined, granted)).toEqual({ Vary: 'Origin' });
    expect(corsHeaders([], 'http://localhost:5173', granted)).toEqual({});
  });

  it('grant a preflight the methods asked about, the request headers and two hours of caching', () => {
    const answer = preflight(['GET'], corsAllowedHeaders(CONTRACTS));

    expect(corsHeaders(['*'], 'http://127.0.0.1:8080', answer.cors)).toEqual({
      Vary: 'Origin',
      'Access-Control-Allow-Origin': 'http://127.0.0.1:8080',
      'Access-Control-Allow-Methods': 'GET',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match',
      'Access-Control-Max-Age': '7200',
    });
  });
});

describe("CORS on API Gateway's own answers", () => {
  it('copies Origin back when any origin is allowed', () => {
    expect(gatewayResponseCorsHeaders(['*'])).toEqual({
      'Access-Control-Allow-Origin': { requestHeader: 'Origin' },
      'Access-Control-Expose-Headers': GATEWAY_EXPOSED,
      Vary: 'Origin',
    });
    expect(gatewayResponseValue({ requestHeader: 'Origin' })).toBe('method.request.header.Origin');
  });

  it('names the one allowed origin, fixed', () => {
    expect(gatewayResponseCorsHeaders(['https://app.example.com'])).toMatchObject({
      'Access-Control-Allow-Origin': 'https://app.example.com',
    });
    expect(gatewayResponseValue('https://app.example.com')).toBe("'https://app.example.com'");
  });

  it('sends nothing with several origins: a fixed value names one, a copy would allow all', () => {
    expect(gatewayResponseCorsHeaders(['https://a.example', 'https://b.example'])).toEqual({});
    expect(gatewayResponseCorsHeaders([])).toEqual({});
  });
});

/** The CORS headers a client receives with a gateway response (here a 401), for a request from `origin`. */
const gatewayResponseCorsFor = (allowed: readonly string[], origin: string | undefined) =>
  Object.fromEntries(
    Object.entries(answerHeaders(gatewayResponse('UNAUTHORIZED'), allowed, origin)).filter(
      ([name]) => name.startsWith('Access-Control-') || name === 'Vary',
    ),
  );

describe('the CORS headers a client receives with a gateway response', () => {
  it('copy the request Origin back when any origin is allowed, and name none without one', () => {
    expect(gatewayResponseCorsFor(['*'], 'https://a.example')).toEqual({
      'Access-Control-Allow-Origin': 'https://a.example',
      'Access-Control-Expose-Headers': GATEWAY_EXPOSED,
      Vary: 'Origin',
    });
    expect(gatewayResponseCorsFor(['*'], undefined)).toStrictEqual({
      'Access-Control-Expose-Headers': GATEWAY_EXPOSED,
      Vary: 'Origin',
    });
  });

  it('name the one allowed origin whoever asks, and nothing with several', () => {
    expect(gatewayResponseCorsFor(['https://a.example'], 'https://b.example')).toEqual({
      'Access-Control-Allow-Origin': 'https://a.example',
      'Access-Control-Expose-Headers': GATEWAY_EXPOSED,
    });
    expect(gatewayResponseCorsFor(['https://a.example', 'https://b.example'], 'https://a.example')).toEqual(
      {},
    );
  });
});

describe('the mocks’ CORS template', () => {
  it('sets the headers for each allowed origin, and for no other', () => {
    expect(
      corsOverrideTemplate(['https://a.example', 'https://b.example'], { 'Access-Control-Max-Age': '7200' }),
    ).toBe(
      "#set($origin = $input.params().header.get('Origin'))" +
        `#if("$!origin" == "")#set($origin = $input.params().header.get('origin'))#end` +
        "#if($origin == 'https://a.example' || $origin == 'https://b.example')" +
        '#set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)' +
        "#set($context.responseOverride.header.Access-Control-Max-Age = '7200')" +
        '#end',
    );
  });

  it('sets them for any request with an Origin when any origin is allowed, and is empty with none', () => {
    expect(corsOverrideTemplate(['*'], {})).toContain('#if("$!origin" != "")');
    expect(corsOverrideTemplate([], { 'Access-Control-Max-Age': '7200' })).toBe('');
  });
});

describe('what a page may send and read', () => {
  /** Readable by any script without being exposed (the Fetch standard's safelisted response headers). */
  const SAFELISTED = [
    'cache-control',
    'content-language',
    'content-length',
    'content-type',
    'expires',
    'last-modified',
    'pragma',
  ];
  const lower = (names: Iterable<string>) => [...names].map((name) => name.toLowerCase());

  /** Every header a function's answers may carry: its responses', its deprecation's, and `Retry-After`. */
  const answeredBy = (operation: Operation): string[] => [
    ...Object.keys(retryHeaders('SERVICE_UNAVAILABLE')),
    ...Object.values(operation.responses).flatMap((response) => Object.keys(response.headers ?? {})),
    ...(operation.deprecation ? Object.keys(deprecationHeaders(operation.deprecation)) : []),
  ];

  it.each(CONTRACTS.map((operation) => [operation.operationId, operation] as const))(
    "exposes on %s's answers every header they may carry, Request-Id and RateLimit-Policy included",
    (_id, operation) => {
      const readable = [...lower(corsExposedHeaders([operation])), ...SAFELISTED];

      for (const name of lower(answeredBy(operation))) expect(readable, name).toContain(name);
      expect(readable).toEqual(expect.arrayContaining(['request-id', 'ratelimit-policy', 'x-amz-apigw-id']));
    },
  );

  it('exposes, over all the operations, the headers it always has, and allows the request headers it always has', () => {
    expect(corsExposedHeaders(CONTRACTS).sort()).toEqual(
      [
        'Link',
        'Location',
        'Deprecation',
        'Sunset',
        'Retry-After',
        'Idempotent-Replayed',
        'ETag',
        'Request-Id',
        'RateLimit-Policy',
        'x-amz-apigw-id',
      ].sort(),
    );
    expect(corsAllowedHeaders(CONTRACTS)).toEqual([
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'If-Match',
      'If-None-Match',
    ]);
  });

  it('allows every request header an operation reads', () => {
    const allowed = lower(corsAllowedHeaders(CONTRACTS));
    for (const operation of CONTRACTS) {
      for (const name of requestHeaderNames(operation)) expect(allowed, name).toContain(name);
    }
  });

  it('follows the operations that read If-Match and answer ETag, each function exposing its own', () => {
    const byId = (id: string) => CONTRACTS.filter((operation) => operation.operationId === id);

    expect(corsAllowedHeaders(byId('deletePet'))).toContain('If-Match');
    expect(corsExposedHeaders(byId('updatePet'))).toContain('ETag');
    expect(corsExposedHeaders(byId('listPets'))).not.toContain('ETag');
  });

  it("lets a page read on API Gateway's own answers the headers any answer may carry", () => {
    expect(corsExposedHeaders([]).join(', ')).toBe(GATEWAY_EXPOSED);
  });
});

describe('a preflight', () => {
  it('lists the methods of the resource, comma-separated', () => {
    expect(answerHeaders(preflight(['GET', 'POST'], []), ['*'], 'https://a.example')).toMatchObject({
      'Access-Control-Allow-Methods': 'GET, POST',
    });
  });
});
