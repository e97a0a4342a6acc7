import assert from 'node:assert/strict';
import { assertAtMost, assertContains, assertError, assertIncludes, detailsOf } from './assertions';
import { type ContractArea, check, eachCase } from './check';

/** Every way a request can be wrong that changes nothing, and the Error object it gets. */

const OPERATIONS = [
  ['GET', '/pets'],
  ['POST', '/pets'],
  ['GET', '/pets/1'],
] as const;

export const AUTHENTICATION_AREA: ContractArea = {
  area: 'authentication',
  checks: [
    ...eachCase(
      OPERATIONS,
      ([method, path]) => `${method} ${path} answers 401 UNAUTHORIZED without a key`,
      async ({ api }, [method, path]) => {
        const response = await api.request(path, {
          method,
          anonymous: true,
          ...(method === 'POST' ? { body: {} } : {}),
        });

        assertError(response, 401, 'UNAUTHORIZED');
      },
    ),
    ...eachCase(
      [
        ['an unknown key', 'Bearer psk_not-a-key'],
        ['another scheme', 'Basic dXNlcjpwYXNz'],
        ['an empty bearer', 'Bearer '],
        ['a bare key', 'psk_not-a-key'],
      ],
      ([what]) => `answers 401 UNAUTHORIZED for ${what}, without echoing it`,
      async ({ api }, [_what, authorization]) => {
        const response = await api.get('/pets', {
          anonymous: true,
          headers: { Authorization: authorization },
        });

        assertError(response, 401, 'UNAUTHORIZED');
        assert.doesNotMatch(response.text, /not-a-key/);
      },
    ),
    check('accepts the bearer scheme in any case', async ({ api, apiKey }) => {
      const response = await api.get('/pets?limit=1', {
        anonymous: true,
        headers: { authorization: `BEARER ${apiKey}` },
      });

      assert.equal(response.status, 200);
    }),
  ],
};

export const QUERY_AREA: ContractArea = {
  area: 'GET /pets with a bad query',
  checks: [
    ...eachCase(
      [
        ['limit=0', 'query.limit'],
        ['limit=101', 'query.limit'],
        ['limit=abc', 'query.limit'],
        ['limit=', 'query.limit'],
        ['limit=1.5', 'query.limit'],
        ['limit=-1', 'query.limit'],
        ['limit=1e2', 'query.limit'],
        ['status=lost', 'query.status'],
        ['status=', 'query.status'],
        ['status=AVAILABLE', 'query.status'],
        ['limit=5&limit=6', 'query.limit'],
        ['limt=5', 'query.limt'],
      ],
      ([query, field]) => `answers 400 VALIDATION_FAILED for ?${query}, naming ${field}`,
      async ({ api }, [query, field]) => {
        const response = await api.get(`/pets?${query}`);

        assertError(response, 400, 'VALIDATION_FAILED');
        assertIncludes(
          detailsOf(response).map((detail) => detail.field),
          field,
        );
      },
    ),
    check('never clamps: limit=1000 is an error, not 100 pets', async ({ api }) => {
      const response = await api.get('/pets?limit=1000');

      assert.equal((response.json as { code?: string }).code, 'VALIDATION_FAILED');
      assert.deepEqual(
        detailsOf(response).map((detail) => detail.field),
        ['query.limit'],
      );
    }),
    ...eachCase(
      ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'].map((name) => [name] as const),
      ([name]) => `answers ?${name}=1 with 400 naming the parameter, never a 500`,
      async ({ api }, [name]) => {
        const response = await api.get(`/pets?${name}=1`);

        assertError(response, 400, 'VALIDATION_FAILED');
        const details = detailsOf(response);
        assert.deepEqual(
          details.map((detail) => detail.field),
          [`query.${name}`],
        );
        assert.equal(typeof details[0]?.message, 'string');
      },
    ),
    check(
      'answers a 10 kB unknown query name with a 400 that echoes 64 characters of it',
      async ({ api }) => {
        const response = await api.get(`/pets?${'q'.repeat(10_000)}=1`);

        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          detailsOf(response).map((detail) => detail.field),
          [`query.${'q'.repeat(57)}…`],
        );
        assertAtMost(Buffer.byteLength(response.text), 4_096);
      },
    ),
  ],
};

export const PET_ID_AREA: ContractArea = {
  area: 'GET /pets/{petId} with a bad id',
  checks: eachCase(
    ['abc', '0', '-1', '1.5', '9007199254740992', '99999999999999999999', '%20'].map((id) => [id] as const),
    ([petId]) => `answers 400 VALIDATION_FAILED for /pets/${petId}`,
    async ({ api }, [petId]) => {
      const response = await api.get(`/pets/${petId}`);

      assertError(response, 400, 'VALIDATION_FAILED');
      assert.deepEqual(
        detailsOf(response).map((detail) => detail.field),
        ['path.petId'],
      );
    },
  ),
};

const CONTROL_MESSAGE = 'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)';
const BLANK_MESSAGE =
  'must not be blank: it needs a visible character (not a space, control, format or invisible one)';

export const BODY_AREA: ContractArea = {
  area: 'POST /pets with a bad body',
  checks: [
    ...eachCase(
      [
        ['no name', { categoryId: 1 }, 'body.name', 'is required'],
        ['no categoryId', { name: 'Rex' }, 'body.categoryId', 'is required'],
        ['an empty name', { name: '', categoryId: 1 }, 'body.name', 'must not be empty'],
        ['a blank name', { name: '   ', categoryId: 1 }, 'body.name', BLANK_MESSAGE],
        ['a name of only U+200B', { name: '\u200b', categoryId: 1 }, 'body.name', BLANK_MESSAGE],
        ['a name of U+200D U+200C', { name: '\u200d\u200c', categoryId: 1 }, 'body.name', BLANK_MESSAGE],
        ['a name of U+2060 U+00A0', { name: '\u2060\u00a0', categoryId: 1 }, 'body.name', BLANK_MESSAGE],
        ['a name of only U+3164', { name: '\u3164', categoryId: 1 }, 'body.name', BLANK_MESSAGE],
        ['a name with NUL', { name: 'Rex\u0000', categoryId: 1 }, 'body.name', CONTROL_MESSAGE],
        ['a name with BEL', { name: 'Re\u0007x', categoryId: 1 }, 'body.name', CONTROL_MESSAGE],
        ['a name with a line break', { name: 'Rex\nSmith', categoryId: 1 }, 'body.name', CONTROL_MESSAGE],
        [
          'a 201-character name',
          { name: 'x'.repeat(201), categoryId: 1 },
          'body.name',
          'must be at most 200 characters',
        ],
        ['a numeric name', { name: 7, categoryId: 1 }, 'body.name', 'must be a string'],
        ['categoryId 0', { name: 'Rex', categoryId: 0 }, 'body.categoryId', 'must be at least 1'],
        [
          'a fractional categoryId',
          { name: 'Rex', categoryId: 1.5 },
          'body.categoryId',
          'must be an integer',
        ],
        ['a string categoryId', { name: 'Rex', categoryId: '3' }, 'body.categoryId', 'must be an integer'],
        [
          'categoryId 2^53',
          { name: 'Rex', categoryId: 2 ** 53 },
          'body.categoryId',
          'must be at most 9007199254740991',
        ],
        [
          'an unknown status',
          { name: 'Rex', categoryId: 1, status: 'lost' },
          'body.status',
          'must be one of',
        ],
        [
          'a misspelt field',
          { name: 'Rex', categoryId: 1, staus: 'sold' },
          'body.staus',
          'is not a known field',
        ],
        ['an id', { id: 5, name: 'Rex', categoryId: 1 }, 'body.id', 'is not a known field'],
      ],
      ([what]) => `answers 400 VALIDATION_FAILED for ${what}`,
      async ({ api }, [_what, body, field, message]) => {
        const response = await api.post('/pets', body);

        assertError(response, 400, 'VALIDATION_FAILED');
        const detail = detailsOf(response).find((candidate) => candidate.field === field);
        assertContains(detail?.message, message);
      },
    ),
    check('lists every problem of a body at once', async ({ api }) => {
      const response = await api.post('/pets', { name: '', categoryId: -2, extra: true });

      assert.deepEqual(
        detailsOf(response)
          .map((detail) => detail.field)
          .sort(),
        ['body.categoryId', 'body.extra', 'body.name'],
      );
    }),
    check('answers 1,500 unknown fields with a 400 of 10 details, under 4 KiB', async ({ api }) => {
      const body: Record<string, unknown> = { name: 'Rex', categoryId: 1 };
      for (let index = 0; index < 1_500; index += 1) body[`f${index}`] = 0;

      const response = await api.post('/pets', body);

      assertError(response, 400, 'VALIDATION_FAILED');
      assert.equal(detailsOf(response).length, 10);
      assert.match((response.json as { message: string }).message, /; and 1490 more problems$/);
      assertAtMost(Buffer.byteLength(response.text), 4_096);
    }),
    ...eachCase(
      [
        ['an array', '[]'],
        ['null', 'null'],
        ['a string', '"Rex"'],
        ['a number', '42'],
      ],
      ([what]) => `answers 400 VALIDATION_FAILED for a body that is ${what}, not an object`,
      async ({ api }, [_what, text]) => {
        const response = await api.post('/pets', text, { headers: { 'Content-Type': 'application/json' } });

        assertError(response, 400, 'VALIDATION_FAILED');
        assert.deepEqual(detailsOf(response), [{ field: 'body', message: 'must be a JSON object' }]);
      },
    ),
    ...eachCase(
      [
        ['malformed JSON', '{"name": "Rex",'],
        ['a lone brace', '{'],
        ['text', 'name=Rex'],
      ],
      ([what]) => `answers 400 INVALID_JSON for ${what}`,
      async ({ api }, [_what, text]) => {
        const response = await api.post('/pets', text, { headers: { 'Content-Type': 'application/json' } });

        assertError(response, 400, 'INVALID_JSON');
      },
    ),
    check('answers 400 INVALID_JSON for an empty body', async ({ api }) => {
      const response = await api.request('/pets', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });

      assertError(response, 400, 'INVALID_JSON');
    }),
    ...eachCase(
      [
        ['text/plain', 'text/plain'],
        ['form data', 'application/x-www-form-urlencoded'],
        ['JSON in another charset', 'application/json; charset=latin1'],
        ['another JSON-like type', 'application/jsonx'],
      ],
      ([what]) => `answers 415 UNSUPPORTED_MEDIA_TYPE for a body sent as ${what}`,
      async ({ api }, [_what, contentType]) => {
        const response = await api.post('/pets', '{"name":"Rex","categoryId":1}', {
          headers: { 'Content-Type': contentType },
        });

        assertError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      },
    ),
    check('answers 413 PAYLOAD_TOO_LARGE for a body over 16 KiB, even valid JSON', async ({ api }) => {
      const response = await api.post('/pets', { name: 'x'.repeat(17 * 1024), categoryId: 1 });

      assertError(response, 413, 'PAYLOAD_TOO_LARGE');
    }),
  ],
};

export const ROUTING_AREA: ContractArea = {
  area: 'routing',
  checks: [
    ...eachCase(
      ['/nope', '/pets/1/owner', '/', '/pets//1'].map((path) => [path] as const),
      ([path]) => `answers 404 NOT_FOUND for the unknown path /v1${path}`,
      async ({ api }, [path]) => {
        assertError(await api.get(path), 404, 'NOT_FOUND');
      },
    ),
    ...eachCase(
      [
        ['DELETE', '/pets/1', 'GET'],
        ['PUT', '/pets/1', 'GET'],
        ['POST', '/pets/1', 'GET'],
        ['DELETE', '/pets', 'GET, POST'],
        ['PATCH', '/pets', 'GET, POST'],
      ],
      ([method, path, allow]) => `answers ${method} ${path} with 405 METHOD_NOT_ALLOWED and Allow: ${allow}`,
      async ({ api }, [method, path, allow]) => {
        const response = await api.request(path, { method });

        assertError(response, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(response.headers.get('allow'), allow);
      },
    ),
    ...eachCase(
      ['toString', 'constructor', '__proto__', 'hasOwnProperty'].map((name) => [name] as const),
      ([name]) => `serves a request carrying a header named ${name} like any other`,
      async ({ api }, [name]) => {
        assert.equal((await api.get('/pets?limit=1', { headers: { [name]: '1' } })).status, 200);
      },
    ),
  ],
};
