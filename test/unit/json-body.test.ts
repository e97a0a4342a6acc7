import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createPetEndpoint } from '#functions/create-pet';
import type { NewPet } from '#shared/domain/pet';
import type { PetService } from '#shared/domain/pet-service';
import { parseGivesNumberSource } from '#shared/http/exact-numbers';
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from '#shared/http/limits';
import { checkBody } from '#shared/http/middleware/json-body';
import { silent } from '../support/observability';

/**
 * The JSON body reader of every function that takes a body, in-process: its size, media type,
 * coding and UTF-8 checks, then its parser (on this Node: each number reread losslessly).
 * createPet's endpoint carries it; its service only records what reached it.
 */

const reader = () => {
  const received: NewPet[] = [];
  const pets = {
    create: async (newPet: NewPet) => {
      received.push(newPet);
      return { pet: { id: 1, status: 'available', ...newPet }, replayed: false };
    },
  } as unknown as PetService;
  const handler = createPetEndpoint({ pets, ...silent() });
  const send = async (
    body: string | null,
    {
      headers = { 'content-type': 'application/json' },
      base64 = false,
    }: { headers?: Record<string, string>; base64?: boolean } = {},
  ) => {
    const event = {
      httpMethod: 'POST',
      path: '/pets',
      resource: '/pets',
      headers,
      multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body,
      isBase64Encoded: base64,
      requestContext: { extendedRequestId: 'req-1' },
    } as unknown as APIGatewayProxyEvent;
    const result = (await handler(event, { awsRequestId: 'l-1' } as Context)) as APIGatewayProxyResult;
    const answer = JSON.parse(result.body) as {
      code?: string;
      message?: string;
      details?: { field: string }[];
    };
    return { ...answer, status: result.statusCode, headers: result.headers ?? {} };
  };
  return { send, received };
};

const REX = '{"name":"Rex","categoryId":1}';
/** REX padded with spaces to `bytes` bytes. */
const padded = (bytes: number) => REX + ' '.repeat(bytes - REX.length);

describe('the size of a JSON body', () => {
  it('may be the limit, counted in bytes of the decoded body, base64 or not', async () => {
    const { send, received } = reader();
    const base64 = Buffer.from(padded(MAX_BODY_BYTES)).toString('base64');

    expect(base64.length).toBeGreaterThan(MAX_BODY_BYTES);
    expect((await send(padded(MAX_BODY_BYTES))).status).toBe(201);
    expect((await send(base64, { base64: true })).status).toBe(201);
    expect(received).toEqual([
      { name: 'Rex', categoryId: 1 },
      { name: 'Rex', categoryId: 1 },
    ]);
  });

  it('is refused with 413 one byte past the limit, a character of two bytes counted as two', async () => {
    const { send, received } = reader();
    const answer = await send(`${padded(MAX_BODY_BYTES - 1)}é`);

    expect([answer.status, answer.code, answer.message]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      `Request body is ${MAX_BODY_BYTES + 1} bytes; at most ${MAX_BODY_BYTES} are accepted`,
    ]);
    expect(received).toEqual([]);
  });

  it('must not be empty or absent: 400 INVALID_JSON, saying a body is required', async () => {
    const { send } = reader();

    for (const body of [null, '']) {
      const answer = await send(body);
      expect([answer.status, answer.code, answer.message]).toEqual([
        400,
        'INVALID_JSON',
        'Request body is required: a JSON object',
      ]);
    }
  });
});

describe('the media type and coding of a JSON body', () => {
  it('must be JSON: another type, or none, is 415 naming the type to send', async () => {
    const { send } = reader();

    for (const headers of [{ 'content-type': 'text/plain' }, {}] as Record<string, string>[]) {
      const answer = await send(REX, { headers });
      expect([answer.status, answer.code, answer.message]).toEqual([
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        'Content-Type must be application/json',
      ]);
    }
    expect((await send(REX, { headers: { 'content-type': 'Application/JSON; charset=UTF-8' } })).status).toBe(
      201,
    );
  });

  it('must be uncompressed: a content coding is 415 naming it, asking for identity', async () => {
    const { send, received } = reader();
    const answer = await send(REX, {
      headers: { 'content-type': 'application/json', 'content-encoding': 'GZIP, br' },
    });

    expect([answer.status, answer.code, answer.message]).toEqual([
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Encoding gzip, br is not supported: send the body uncompressed',
    ]);
    expect(answer.headers['Accept-Encoding']).toBe('identity');
    expect(received).toEqual([]);
  });

  it('may say it is identity-coded, or name no coding', async () => {
    const { send } = reader();

    for (const coding of ['identity', ' Identity , ', ''])
      expect(
        (await send(REX, { headers: { 'content-type': 'application/json', 'content-encoding': coding } }))
          .status,
      ).toBe(201);
  });
});

describe('the text of a JSON body', () => {
  it('is refused when base64 bytes are not UTF-8', async () => {
    const { send } = reader();
    const answer = await send(Buffer.from([0x7b, 0xff, 0x7d]).toString('base64'), { base64: true });

    expect([answer.status, answer.code, answer.message]).toEqual([
      400,
      'INVALID_JSON',
      'Request body is not valid UTF-8',
    ]);
  });

  it('is refused when it holds a raw U+FFFD, what bad bytes became on the way; the escape passes', async () => {
    const { send, received } = reader();
    const answer = await send('{"name":"R\uFFFDx","categoryId":1}');

    expect([answer.status, answer.code]).toEqual([400, 'INVALID_JSON']);
    expect(answer.message).toBe(
      'Request body is not valid UTF-8: it holds U+FFFD, what bytes that are not UTF-8 become on the way (to send that character, escape it as \\ufffd)',
    );
    expect((await send('{"name":"R\\ufffdx","categoryId":1}')).status).toBe(201);
    expect(received).toEqual([{ name: 'R\uFFFDx', categoryId: 1 }]);
  });

  it('is read from base64 strictly, once, as UTF-8', async () => {
    const { send, received } = reader();

    expect(
      (await send(Buffer.from('{"name":"Réx","categoryId":2}').toString('base64'), { base64: true })).status,
    ).toBe(201);
    expect(received).toEqual([{ name: 'Réx', categoryId: 2 }]);
  });
});

describe('the JSON of a body', () => {
  it('is refused as 400 INVALID_JSON when malformed', async () => {
    const { send } = reader();
    const answer = await send('{"name":"Rex",');

    expect([answer.status, answer.code, answer.message]).toEqual([
      400,
      'INVALID_JSON',
      'Request body is not valid JSON',
    ]);
  });

  it('is refused naming the body when nested deeper than the limit, and each field holding an inexact number', async () => {
    const { send, received } = reader();
    const deep = `{"name":"Rex","categoryId":1,"x":${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}}`;
    const inexact = await send('{"name":"Rex","categoryId":1.0000000000000001}');

    expect((await send(deep)).details?.map(({ field }) => field)).toEqual(['body']);
    expect([inexact.status, inexact.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(inexact.details?.map(({ field }) => field)).toEqual(['body.categoryId']);
    expect(received).toEqual([]);
  });

  it('is refused naming each member whose name repeats in its object, at any depth, before the pet is seen', async () => {
    const { send, received } = reader();

    const top = await send('{"name":"A","categoryId":1,"name":"B"}');
    const same = await send('{"name":"Rex","categoryId":1,"categoryId":1}');
    const deep = await send('{"name":"Rex","categoryId":1,"x":[{"y":1,"y":1}]}');

    expect([top.status, top.code, top.details?.map(({ field }) => field)]).toEqual([
      400,
      'VALIDATION_FAILED',
      ['body.name'],
    ]);
    expect(same.details?.map(({ field }) => field)).toEqual(['body.categoryId']);
    expect(deep.details?.map(({ field }) => field)).toEqual(['body.x.0.y']);
    expect(received).toEqual([]);
  });

  it('is reread losslessly on this Node, whose JSON.parse gives a reviver no number source', () => {
    expect(parseGivesNumberSource()).toBe(Number(process.versions.node.split('.')[0]) >= 22);
  });
});

describe('the checks before a body is parsed', () => {
  const refusal = (body: Parameters<typeof checkBody>[0], mediaTypes?: readonly string[]) => {
    try {
      checkBody(body, 10, mediaTypes);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('take the limit and the media types they are given, application/json by default', () => {
    expect(refusal({ bytes: 10, contentType: 'application/json' })).toBeUndefined();
    expect(refusal({ bytes: 11, contentType: 'application/json' })).toBe(
      'Request body is 11 bytes; at most 10 are accepted',
    );
    expect(refusal({ bytes: 1, contentType: 'application/merge-patch+json' })).toBe(
      'Content-Type must be application/json',
    );
    expect(
      refusal({ bytes: 1, contentType: 'application/json' }, [
        'application/merge-patch+json',
        'application/x',
      ]),
    ).toBe('Content-Type must be application/merge-patch+json or application/x');
  });
});
