import assert from 'node:assert/strict';
import { allowedMethods, CONTRACTS, RESOURCE_PATHS } from '#functions/operations';
import { deprecationHeaders } from '#shared/http/deprecation';
import { toHttpError } from '#shared/http/error-mapper';
import { HTTP_METHODS, type Operation } from '#shared/operations/operation';
import type { ApiClient, ApiRequest, ObservedExchange } from './api-client';
import { assertError, detailsOf } from './assertions';
import { type ContractArea, type ContractCheck, check } from './check';
import { smokeName } from './target';

/** What every operation in OPERATIONS (functions/operations.ts) promises, from its contract alone. */

/** An id no pet has: the largest the API accepts, which no stage will reach. */
export const NEVER_ASSIGNED = String(Number.MAX_SAFE_INTEGER);

const successesOf = (operation: Operation) => Object.keys(operation.responses).map(Number);
const parametersOf = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? '');
/** The path parameters that name a resource the suite makes first: those its contract gives no example of. */
const createdParameters = (operation: Operation) =>
  parametersOf(operation.path).filter((name) => !Object.hasOwn(operation.examples.path ?? {}, name));
const takesId = (operation: Operation) => createdParameters(operation).length > 0;
/** The path with its parameters' `values` (one for the rest: an id no pet has). */
const at = (path: string, values: Readonly<Record<string, string>> = {}) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? NEVER_ASSIGNED));

/** The operation's valid bodies: its examples, each pet named as this run's own (`smoke-…`). */
const validBodies = (operation: Operation): unknown[] => {
  if (!operation.request.body) return [undefined];
  const examples = Object.values(operation.examples.requests ?? {}).map(({ value }) =>
    typeof value === 'object' && value !== null && 'name' in value
      ? { ...value, name: smokeName(String(value.name)) }
      : value,
  );
  assert.ok(examples.length > 0, `${operation.operationId} reads a body, and its contract has no example`);
  return examples;
};

/** A pet of this run's own for `path`'s id, made by the operation that creates them (POST on the parent). */
const createFor = async (api: ApiClient, path: string): Promise<string> => {
  const parent = path.replace(/\/\{\w+\}$/, '');
  const creator = CONTRACTS.find((candidate) => candidate.method === 'POST' && candidate.path === parent);
  assert.ok(
    creator,
    `No operation creates what ${path} names, and its contract gives no example: no POST ${parent}`,
  );
  const response = await api.request(parent, { method: 'POST', body: validBodies(creator)[0] });
  assert.ok(successesOf(creator).includes(response.status), response.text);
  return String((response.json as { id: unknown }).id);
};

/**
 * The operation called with `request`: its path parameters its examples' values, but those that name
 * a resource the suite makes: `id`, or a pet of its own.
 */
const call = async (
  api: ApiClient,
  operation: Operation,
  { id, query = '', ...request }: ApiRequest & { readonly id?: string; readonly query?: string },
): Promise<ObservedExchange> => {
  const made = createdParameters(operation);
  const pet = id ?? (made.length > 0 ? await createFor(api, operation.path) : NEVER_ASSIGNED);
  const values = { ...operation.examples.path, ...Object.fromEntries(made.map((name) => [name, pet])) };
  return api.request(`${at(operation.path, values)}${query}`, { method: operation.method, ...request });
};

const fieldsOf = (response: Parameters<typeof detailsOf>[0]) => detailsOf(response).map(({ field }) => field);

const checksOf = (operation: Operation): ContractCheck[] => {
  const name = `${operation.method} ${operation.path}`;
  const successes = successesOf(operation);
  const { invalid } = operation.examples;
  const named = (['query', 'path', 'body'] as const).flatMap((part) =>
    Object.keys(invalid[part] ?? {}).map((field) => `${part}.${field}`),
  );
  const body = () => validBodies(operation)[0];
  const deprecated = operation.deprecation && Object.entries(deprecationHeaders(operation.deprecation));
  const declares404 = operation.errors?.some((error) => toHttpError(error.example()).code === 'NOT_FOUND');
  return [
    check(
      `${name} answers its example requests with ${successes.join(' or ')}`,
      async ({ api }) => {
        for (const example of validBodies(operation)) {
          const response = await call(api, operation, example === undefined ? {} : { body: example });
          assert.ok(successes.includes(response.status), `answered ${response.status}: ${response.text}`);
        }
      },
      { creates: takesId(operation) || operation.method !== 'GET' },
    ),
    check(
      `${name} answers its invalid example (${invalid.summary}) with 400 naming ${named.join(', ')}`,
      async ({ api }) => {
        const query = new URLSearchParams(invalid.query).toString();
        const response = await api.request(
          `${at(operation.path, { ...operation.examples.path, ...invalid.path })}${query ? `?${query}` : ''}`,
          {
            method: operation.method,
            body: invalid.body ?? body(),
          },
        );

        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(fieldsOf(response).sort(), named.sort());
      },
    ),
    check(`${name} answers 401 UNAUTHORIZED without a key`, async ({ api }) => {
      const response = await call(api, operation, { id: NEVER_ASSIGNED, anonymous: true, body: body() });
      assertError(response, 401, 'UNAUTHORIZED');
    }),
    check(`${name} answers an unknown query parameter with 400 naming it`, async ({ api }) => {
      const response = await call(api, operation, {
        id: NEVER_ASSIGNED,
        query: '?smokeUnknown=1',
        body: body(),
      });

      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(fieldsOf(response), ['query.smokeUnknown']);
    }),
    ...(takesId(operation) && declares404
      ? [
          check(`${name} answers 404 NOT_FOUND where no pet has the id`, async ({ api }) => {
            assertError(await call(api, operation, { id: NEVER_ASSIGNED, body: body() }), 404, 'NOT_FOUND');
          }),
        ]
      : []),
    ...(deprecated
      ? [
          check(
            `${name} answers with ${deprecated.map(([header]) => header).join(', ')}, whether it finds the pet or not`,
            async ({ api }) => {
              for (const id of [undefined, NEVER_ASSIGNED]) {
                const answer = await call(api, operation, { ...(id ? { id } : {}), body: body() });
                const carried: [string, string | null][] = deprecated.map(([header]) => [
                  header,
                  answer.headers.get(header),
                ]);
                assert.deepEqual(carried, deprecated, `${answer.status}: ${answer.text}`);
              }
            },
            { creates: takesId(operation) || operation.method !== 'GET' },
          ),
        ]
      : []),
    ...(operation.request.body ? bodyChecksOf(name, operation, body) : []),
  ];
};

/** What an operation that reads a body promises of any body: JSON, an object, at most 16 KiB. */
const bodyChecksOf = (name: string, operation: Operation, body: () => unknown): ContractCheck[] => {
  const sent = (api: ApiClient, text: string | undefined, type = 'application/json') =>
    call(api, operation, { id: NEVER_ASSIGNED, body: text, headers: { 'Content-Type': type } });
  return [
    check(
      `${name} reads Content-Type in any case, with white space and a charset (RFC 9110)`,
      async ({ api }) => {
        for (const type of [
          'Application/JSON',
          'application/json ; charset=UTF-8',
          'APPLICATION/JSON;CHARSET="utf-8"',
        ]) {
          const response = await call(api, operation, {
            body: JSON.stringify(body()),
            headers: { 'Content-Type': type },
          });
          assert.ok(successesOf(operation).includes(response.status), `${type}: ${response.text}`);
        }
      },
      { creates: true },
    ),
    check(`${name} answers a body that is not JSON, or none, with 400 INVALID_JSON`, async ({ api }) => {
      for (const text of ['{"name": "Rex",', '{', 'name=Rex', undefined])
        assertError(await sent(api, text), 400, 'INVALID_JSON');
    }),
    check(`${name} answers JSON that is not an object with 400 naming body`, async ({ api }) => {
      for (const text of ['[]', 'null', '"Rex"', '42']) {
        const response = await sent(api, text);
        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(detailsOf(response), [{ field: 'body', message: 'must be a JSON object' }]);
      }
    }),
    check(`${name} answers a body of another media type with 415 UNSUPPORTED_MEDIA_TYPE`, async ({ api }) => {
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'application/jsonx',
      ])
        assertError(await sent(api, '{}', type), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }),
    check(
      `${name} answers a body over 16 KiB with 413 PAYLOAD_TOO_LARGE, even valid JSON`,
      async ({ api }) => {
        assertError(
          await sent(api, JSON.stringify({ padding: 'x'.repeat(17 * 1024) })),
          413,
          'PAYLOAD_TOO_LARGE',
        );
      },
    ),
  ];
};

/** What every resource path promises, from the operations on it: 405 with `Allow`, and its preflight. */
const pathChecksOf = (path: string): ContractCheck[] => {
  const allow = allowedMethods(path).join(', ');
  const preflight = (api: ApiClient, origin: string) =>
    api.request(at(path), {
      method: 'OPTIONS',
      anonymous: true,
      headers: { Origin: origin, 'Access-Control-Request-Method': allowedMethods(path)[0] ?? 'GET' },
    });
  return [
    ...HTTP_METHODS.filter((method) => !allowedMethods(path).includes(method)).map((method) =>
      check(`${method} ${path} answers 405 METHOD_NOT_ALLOWED with Allow: ${allow}`, async ({ api }) => {
        const response = await api.request(at(path), { method });

        assertError(response, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(response.headers.get('allow'), allow);
      }),
    ),
    check(
      `OPTIONS ${path} answers a preflight without a key: 204, no body`,
      async ({ api, allowedOrigin }) => {
        const response = await preflight(api, allowedOrigin ?? 'https://not-allowed.example');

        assert.deepEqual([response.status, response.text], [204, '']);
      },
    ),
    check(
      `OPTIONS ${path} grants an allowed origin exactly ${allow}`,
      async ({ api, allowedOrigin = '' }) => {
        const response = await preflight(api, allowedOrigin);

        assert.equal(response.headers.get('access-control-allow-origin'), allowedOrigin);
        assert.equal(response.headers.get('access-control-allow-methods'), allow);
      },
      { needs: 'allowedOrigin' },
    ),
  ];
};

export const OPERATIONS_AREA: ContractArea = {
  area: 'every operation, from its contract',
  checks: [...CONTRACTS.flatMap(checksOf), ...RESOURCE_PATHS.flatMap(pathChecksOf)],
};
