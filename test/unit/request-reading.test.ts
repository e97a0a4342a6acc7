import { describe, expect, it } from 'vitest';
import { CorsConfigError, checkOrigin, parseAllowedOrigins } from '#shared/allowed-origins';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  IdSpaceExhaustedError,
  PetNotFoundError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import { isAllowedOrigin, originOf } from '#shared/http/cors';
import { checkExactNumbers } from '#shared/http/exact-numbers';
import { headerValues } from '#shared/http/headers';
import { HttpError } from '#shared/http/http-error';
import {
  jsonShape,
  refuseDeepNesting,
  refuseRepeatedMembers,
  repeatedMembers,
} from '#shared/http/json-structure';
import { MAX_BODY_DEPTH } from '#shared/http/limits';
import { isJsonUtf8, parseMediaType } from '#shared/http/media-type';
import { validationFailed } from '#shared/http/middleware/validate-request';
import { jsonResponse } from '#shared/http/responses';

/** The small readers and writers every function uses: headers, media types, origins, errors. */

describe('the values of a request header', () => {
  it('come from the multi-value map, all of them, whatever the case of the name asked or sent', () => {
    const event = {
      headers: { origin: 'https://b.example' },
      multiValueHeaders: { Origin: ['https://a.example'], ORIGIN: ['https://b.example'], Other: ['x'] },
    };

    expect(headerValues(event, 'Origin')).toEqual(['https://a.example', 'https://b.example']);
  });

  it('come from the single-value map when the multi-value one has none, strings only', () => {
    const event = {
      headers: { 'Content-Type': 'application/json', Other: 'x', Empty: undefined } as unknown as Record<
        string,
        string
      >,
      multiValueHeaders: { Other: ['x'] },
    };

    expect(headerValues(event, 'content-type')).toEqual(['application/json']);
    expect(headerValues(event, 'empty')).toEqual([]);
    expect(headerValues({ headers: {}, multiValueHeaders: {} }, 'origin')).toEqual([]);
  });

  it('are none when the event has no header maps at all', () => {
    const bare = { headers: null, multiValueHeaders: null } as unknown as Parameters<typeof headerValues>[0];
    const emptyList = { headers: { a: 'x' }, multiValueHeaders: { a: undefined } } as unknown as Parameters<
      typeof headerValues
    >[0];

    expect(headerValues(bare, 'origin')).toEqual([]);
    expect(headerValues(emptyList, 'a')).toEqual(['x']);
  });

  it("give a request's Origin only when it is sent once", () => {
    expect(originOf({ headers: {}, multiValueHeaders: { Origin: ['https://a.example'] } })).toBe(
      'https://a.example',
    );
    expect(
      originOf({ headers: {}, multiValueHeaders: { Origin: ['https://a.example', 'https://a.example'] } }),
    ).toBeUndefined();
    expect(originOf({ headers: {}, multiValueHeaders: {} })).toBeUndefined();
  });
});

describe('a Content-Type', () => {
  it('is read as type/subtype in lower case, with parameters by lower-case name', () => {
    const type = parseMediaType('Application/JSON ; Charset="UTF-8";\tq=1');

    expect(type?.essence).toBe('application/json');
    expect(Object.fromEntries(type?.parameters ?? [])).toEqual({ charset: 'UTF-8', q: '1' });
  });

  it('unquotes quoted parameter values, escapes included, and allows empty parameters and trailing blanks', () => {
    const type = parseMediaType('text/plain;;a="x\\"y\\\\z" ;b=c; \t');

    expect(Object.fromEntries(type?.parameters ?? [])).toEqual({ a: 'x"y\\z', b: 'c' });
  });

  it.each([
    '',
    'json',
    'application/',
    '/json',
    'application/json charset=utf-8',
    'application/json; charset',
    'application/json; charset=',
    'application/json; charset="utf-8',
    'application/json; charset=utf-8; CHARSET=utf-8',
    'application/json;charset=utf-8 x',
    'application/json,text/plain',
  ])('is not well formed as %j', (value) => {
    expect(parseMediaType(value)).toBeUndefined();
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON;CHARSET=UTF-8',
    'application/json ; charset="utf-8" ',
  ])('is JSON in UTF-8 as %j', (value) => {
    expect(isJsonUtf8(value)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'application/json-patch+json',
    'application/jsonx',
    'application/json; charset=latin1',
    'application/json; charset=utf-8; boundary=x',
    'application/json; version=1',
    'application/json; charset=utf-8,',
  ])('is not JSON in UTF-8 as %j', (value) => {
    expect(isJsonUtf8(value)).toBe(false);
  });
});

describe('allowed origins', () => {
  it('say why an entry is not an origin, naming it', () => {
    expect(() => checkOrigin('app.example.com')).toThrow(
      new CorsConfigError('"app.example.com" is not an origin such as https://app.example.com'),
    );
    expect(() => checkOrigin('https://App.example.com/')).toThrow(
      new CorsConfigError(
        '"https://App.example.com/" is not an origin as browsers send it: scheme, host and port only, lower case, no path (browsers would send https://app.example.com)',
      ),
    );
    expect(() => checkOrigin('ftp://files.example.com')).toThrow(
      new CorsConfigError(
        '"ftp://files.example.com" is not an origin: an origin starts with http:// or https://, as in http://localhost:5173',
      ),
    );
    // A host and port without their scheme parse as a URL of scheme "localhost:": said plainly.
    expect(() => checkOrigin('localhost:5173')).toThrow(
      new CorsConfigError(
        '"localhost:5173" is not an origin: an origin starts with http:// or https://, as in http://localhost:5173 (did you mean http://localhost:5173?)',
      ),
    );
    expect(() => checkOrigin('LocalHost:8080')).toThrow(/\(did you mean http:\/\/localhost:8080\?\)$/);
    expect(() => parseAllowedOrigins('*, https://a.example')).toThrow(
      new CorsConfigError('"*" allows any origin: list no other with it'),
    );
  });

  it('are errors of their own kind', () => {
    expect(new CorsConfigError('x').name).toBe('CorsConfigError');
  });

  it('never include a request without an Origin, or with an empty one, even when any origin is allowed', () => {
    expect(isAllowedOrigin(['*'], undefined)).toBe(false);
    expect(isAllowedOrigin(['*'], '')).toBe(false);
    expect(isAllowedOrigin(['*'], 'https://a.example')).toBe(true);
    expect(isAllowedOrigin(['https://a.example'], 'https://b.example')).toBe(false);
  });
});

describe('errors', () => {
  it('of the domain say what went wrong in its own words, and are named for their class', () => {
    expect([new PetNotFoundError(7).name, new PetNotFoundError(7).message]).toEqual([
      'PetNotFoundError',
      'Pet 7 does not exist',
    ]);
    expect([new StoreUnavailableError('down').name, new StoreUnavailableError('down').message]).toEqual([
      'StoreUnavailableError',
      'down',
    ]);
    expect([new IdSpaceExhaustedError().name, new IdSpaceExhaustedError().message]).toEqual([
      'IdSpaceExhaustedError',
      'No pet ids are left',
    ]);
    expect([new IdempotencyKeyInUseError().name, new IdempotencyKeyInUseError().message]).toEqual([
      'IdempotencyKeyInUseError',
      'An earlier request with this idempotency key is still in progress',
    ]);
    expect([new IdempotencyKeyReusedError().name, new IdempotencyKeyReusedError().message]).toEqual([
      'IdempotencyKeyReusedError',
      'This idempotency key was used for another request',
    ]);
  });

  it('keep the cause they are given', () => {
    const cause = new Error('throttled');

    expect(new StoreUnavailableError('down', { cause }).cause).toBe(cause);
    expect(new IdempotencyKeyInUseError({ cause }).cause).toBe(cause);
    expect(new IdempotencyKeyReusedError({ cause }).cause).toBe(cause);
  });

  it('for the client take their status from the code, no header and no cause unless given', () => {
    const error = new HttpError('SERVICE_UNAVAILABLE', 'later');

    expect(error).toMatchObject({ name: 'HttpError', code: 'SERVICE_UNAVAILABLE', status: 503, headers: {} });
    expect(error.details).toBeUndefined();
    expect('cause' in error).toBe(false);
    expect(new HttpError('NOT_FOUND', 'x', { headers: { Allow: 'GET' } }).headers).toEqual({ Allow: 'GET' });
  });

  it('of validation list every problem in the message, and count what is beyond the first 10', () => {
    const problems = (count: number) =>
      Array.from({ length: count }, (_, index) => ({
        field: `body.f${index}`,
        message: 'is not a known field',
      }));

    expect(validationFailed(problems(1)).message).toBe('Invalid request: body.f0 is not a known field');
    expect(validationFailed(problems(11)).message).toMatch(
      /body\.f9 is not a known field; and 1 more problem$/,
    );
    expect(validationFailed(problems(12)).message).toMatch(/; and 2 more problems$/);
    expect(validationFailed(problems(10)).message).toMatch(/body\.f9 is not a known field$/);
  });
});

describe('a JSON answer', () => {
  it('carries the house headers, later header sets winning and undefined values left out', () => {
    const response = jsonResponse(200, { ok: true }, { Link: 'a', 'X-Gone': undefined }, undefined, {
      Link: 'b',
      'Content-Type': 'application/problem+json',
    });

    expect(response).toStrictEqual({
      statusCode: 200,
      headers: {
        'Content-Type': 'application/problem+json',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        Link: 'b',
      },
      body: '{"ok":true}',
    });
  });
});

describe('JSON in UTF-8', () => {
  it('takes no parameter but charset, whatever its value', () => {
    expect(isJsonUtf8('application/json; format=utf-8')).toBe(false);
    expect(isJsonUtf8('application/json; charset=utf-8')).toBe(true);
  });
});

describe('the numbers of a JSON body', () => {
  const problems = (text: string) => {
    try {
      // As the body parser reads a body on Node 20: its depth first, then its numbers.
      refuseDeepNesting(text, jsonShape(text));
      checkExactNumbers(text);
      return [];
    } catch (error) {
      return (error as HttpError).details?.map(({ field }) => field);
    }
  };

  it('are refused, each field named, when a double cannot hold them exactly, wherever they are', () => {
    expect(problems('{"categoryId":1.0000000000000001}')).toEqual(['body.categoryId']);
    expect(problems('{"categoryId":9007199254740990.9}')).toEqual(['body.categoryId']);
    expect(problems('{"a":{"b":[1,9007199254740993]},"c":1e400,"d":1e-400}')).toEqual([
      'body.a.b.1',
      'body.c',
      'body.d',
    ]);
  });

  it('pass when their text is what the service reads, integers or not, in range or not (the schema judges those)', () => {
    expect(problems('{"categoryId":1.0,"a":1e2,"b":-9007199254740991,"c":0.1,"d":[1.5]}')).toEqual([]);
    expect(problems('{"categoryId":9007199254740992}')).toEqual([]);
  });

  it('are read from the last of repeated keys, as JSON.parse reads them, and left alone in text that is not JSON', () => {
    expect(problems('{"categoryId":1.0000000000000001,"categoryId":1}')).toEqual([]);
    expect(problems('{"categoryId":1,"categoryId":1.0000000000000001}')).toEqual(['body.categoryId']);
    expect(problems('{"categoryId":1.0000000000000001')).toEqual([]);
  });

  it('are not walked in a body nested deeper than the limit, which is refused naming the body, however deep', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

    expect(problems(nested(MAX_BODY_DEPTH))).toEqual([]);
    expect(problems(nested(MAX_BODY_DEPTH + 1))).toEqual(['body']);
    expect(problems(`{"a":${nested(100_000)}}`)).toEqual(['body']);
    // Brackets inside strings, escaped quotes included, are text, not nesting.
    expect(problems(`{"name":"\\"${'['.repeat(100)}"}`)).toEqual([]);
    // Too deep and not JSON: the parser's to refuse, as INVALID_JSON.
    expect(problems(nested(MAX_BODY_DEPTH + 1).slice(1))).toEqual([]);
  });
});

describe('the member names of a JSON body', () => {
  /** The members refused in `text`, as the body parser judges it once parsed. */
  const refused = (text: string) => {
    try {
      refuseRepeatedMembers(text, jsonShape(text), JSON.parse(text));
      return [];
    } catch (error) {
      return (error as HttpError).details?.map(({ field }) => field);
    }
  };

  it('are refused when one repeats in its object, equal values too, named as the field of that member', () => {
    expect(refused('{"name":"A","name":"B"}')).toEqual(['body.name']);
    expect(refused('{"name":"A","categoryId":1,"name":"A"}')).toEqual(['body.name']);
    expect(refused('{"a":1,"a":2,"a":3,"b":1,"b":1}')).toEqual(['body.a', 'body.b']);
    expect(() => refuseRepeatedMembers('{"a":1,"a":1}', jsonShape('{"a":1,"a":1}'), { a: 1 })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: [
          {
            field: 'body.a',
            message: 'is repeated: a member name may appear once in its object (I-JSON, RFC 7493)',
          },
        ],
      }),
    );
  });

  it('are compared as decoded: an escape names the same member as the character', () => {
    expect(refused('{"name":"A","n\\u0061me":"B"}')).toEqual(['body.name']);
    expect(refused('{"a\\"b":1,"a\\u0022b":2}')).toEqual(['body.a"b']);
    expect(refused('{"\\ud83d\\ude00":1,"😀":2,"\\n":1,"\\u000a":2}')).toEqual(['body.😀', 'body.\n']);
  });

  it('are found at any depth, inside arrays by index, and each object has names of its own', () => {
    expect(refused('{"a":{"b":[{"c":1},{"d":1,"d":2}]}}')).toEqual(['body.a.b.1.d']);
    expect(refused('[{"x":1},{"x":1}]')).toEqual([]);
    expect(refused('{"a":{"x":1},"b":{"x":1},"x":{"a":1}}')).toEqual([]);
    expect(refused('{"a":[1,[2,3],{"k":1,"k":1}]}')).toEqual(['body.a.2.k']);
    expect(refused('{"__proto__":1,"__proto__":2,"constructor":1}')).toEqual(['body.__proto__']);
  });

  it('are not taken from string values, whatever they hold: quotes, colons, braces, commas', () => {
    expect(refused('{"a":"b:","c":"a","d":"{\\"a\\":1,\\"a\\":2}",  "e" : ":"}')).toEqual([]);
    expect(refused('{ "a" :1 , "a"\n:2 }')).toEqual(['body.a']);
  });

  it('are read again from the text only when the parsed body holds fewer names than the text has members', () => {
    expect(jsonShape('{"a":{"b":":"},"c":[{"d":1}]}')).toEqual({ depth: 3, members: 4 });
    expect(repeatedMembers('{"a":1,"a":2}')).toEqual(['body.a']);
    // A value that already lost a repeat answers for the text, which is not read again.
    expect(() =>
      refuseRepeatedMembers('{"a":1,"a":2}', jsonShape('{"a":1,"a":2}'), { a: 2, b: 1 }),
    ).not.toThrow();
  });
});
