import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { buildDocument, type OpenApiDocument } from '#infra/openapi/build-document';
import { readCommittedYaml, toYaml } from '#infra/openapi/document-file';
import { BASE_PATH, ROUTES } from '#infra/routes';
import { NewPet, PET_STATUSES, Pet } from '#shared/domain/pet';
import { GET_PET_DEPRECATION_HEADERS } from '#shared/http/deprecation';
import { ERROR_CODES, ERROR_STATUS } from '#shared/http/error-body';
import { GetPetPath, ListPetsQuery } from '#shared/http/request-schemas';
import { Contract } from '../support/conformance';

type Json = Record<string, unknown>;

let document: OpenApiDocument;
let contract: Contract;

beforeAll(async () => {
  document = await buildDocument();
  contract = new Contract(document as Json, 'the generated document');
});

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation: operation as Json })),
  );

const operation = (operationId: string) => {
  const found = operations().find(({ operation }) => operation.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId}`);
  return found.operation as Json & { responses: Record<string, Json>; parameters?: Json[] };
};

/** The same schemas by another road: zod's registry conversion, refs pointing at components. */
const fromRegistry = (io: 'input' | 'output', id: string) => {
  const { schemas } = z.toJSONSchema(z.globalRegistry, { io, uri: (name) => `#/components/schemas/${name}` });
  const { $id: _id, $schema: _dialect, ...schema } = schemas[id] as Json;
  return schema;
};

describe('docs/openapi.yaml', () => {
  it('is exactly what the code generates (run `npm run openapi` and commit it when this fails)', () => {
    expect(readCommittedYaml()).toBe(toYaml(document));
  });
});

describe('the schemas of the document are the ones the service validates with', () => {
  it('names exactly the schemas with a zod id that requests and responses use', () => {
    expect(Object.keys(document.components.schemas).sort()).toEqual(
      ['Error', 'ErrorDetail', 'NewPet', 'Pet', 'PetStatus', 'Pets'].sort(),
    );
  });

  it('describes request bodies from their input side: NewPet is z.toJSONSchema(NewPet)', () => {
    expect(document.components.schemas.NewPet).toEqual(fromRegistry('input', 'NewPet'));
  });

  it.each(['Pet', 'Pets', 'PetStatus', 'Error', 'ErrorDetail'])(
    'describes responses from their output side: %s is zod’s output schema',
    (id) => {
      expect(document.components.schemas[id]).toEqual(fromRegistry('output', id));
    },
  );

  it('accepts and refuses the same NewPet bodies as the service', () => {
    const value = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 220 }),
      fc.constantFrom('', ' ', '\t\n', 'Rex', 'x'.repeat(200), 'x'.repeat(201), ...PET_STATUSES, 'AVAILABLE'),
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(1.5, 2 ** 53 - 1, 2 ** 53, -1e308, 0),
      fc.boolean(),
      fc.constant(null),
    );
    const body = fc.oneof(
      fc.dictionary(fc.constantFrom('name', 'categoryId', 'status', 'staus', 'id'), value),
      fc.record({ name: value, categoryId: value }),
      fc.record({ name: fc.string({ minLength: 1 }), categoryId: fc.integer({ min: 1 }), status: value }),
    );
    fc.assert(
      fc.property(body, (candidate) => {
        const documented = contract.validate('#/components/schemas/NewPet', candidate).length === 0;
        expect(documented).toBe(NewPet.safeParse(candidate).success);
      }),
      { numRuns: 1_000 },
    );
  });

  it('documents every field of a Pet the service returns as required, and nothing more', () => {
    const pet = Pet.parse({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' });
    expect(contract.validate('#/components/schemas/Pet', pet)).toEqual([]);
    expect(contract.validate('#/components/schemas/Pet', { ...pet, owner: 'me' })).not.toEqual([]);
    expect(contract.validate('#/components/schemas/Pet', { ...pet, status: undefined })).not.toEqual([]);
  });

  it('takes query and path parameters from the output side of the request schemas', () => {
    const output = (schema: z.ZodMiniType) =>
      JSON.parse(
        JSON.stringify(z.toJSONSchema(schema, { io: 'output' })).replaceAll(
          '#/$defs/',
          '#/components/schemas/',
        ),
      ) as { properties: Record<string, Json> };
    const asParameters = (parameters: Json[] | undefined) =>
      Object.fromEntries(
        (parameters ?? []).map(({ name, description, schema }) => [
          name,
          { description, ...(schema as Json) },
        ]),
      );

    expect(asParameters(operation('listPets').parameters)).toEqual(output(ListPetsQuery).properties);
    expect(asParameters(operation('getPet').parameters)).toEqual(output(GetPetPath).properties);
  });

  it('requires only the parameters a client must send', () => {
    const required = (operationId: string) =>
      Object.fromEntries(
        (operation(operationId).parameters ?? []).map(({ name, required }) => [name, required]),
      );

    expect(required('listPets')).toEqual({ limit: false, status: false });
    expect(required('getPet')).toEqual({ petId: true });
  });
});

describe('the document and the route table', () => {
  it('has one operation per route, and no other', () => {
    const documented = operations().map(({ path, method, operation }) => ({
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      deprecated: operation.deprecated === true,
    }));
    const routed = ROUTES.map(({ operationId, method, path, deprecated }) => ({
      operationId,
      method,
      path,
      deprecated: deprecated === true,
    }));

    expect(documented).toEqual(expect.arrayContaining(routed));
    expect(routed).toEqual(expect.arrayContaining(documented));
    expect(documented).toHaveLength(routed.length);
  });

  it('tags every operation `animals` and secures every one with the bearer scheme', () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { operation } of operations()) {
      expect(operation.tags).toEqual(['animals']);
      expect(operation.security).toBeUndefined();
    }
  });

  it('serves every operation under servers that end in the /v1 base path', () => {
    const servers = document.servers as { url: string }[];
    expect(servers.length).toBeGreaterThanOrEqual(2);
    for (const server of servers) expect(server.url.endsWith(BASE_PATH)).toBe(true);
  });
});

describe('errors', () => {
  it('lists every code of ERROR_STATUS in the Error enum, and no other', () => {
    const error = document.components.schemas.Error as { properties: { code: { enum: string[] } } };
    expect(error.properties.code.enum).toEqual(ERROR_CODES);
  });

  it('narrows every error response to codes whose status is the response status', () => {
    const responses = [
      ...operations().flatMap(({ operation }) => Object.entries(operation.responses as Record<string, Json>)),
      ...Object.entries(document.components.responses).map(([name, response]) => [name, response] as const),
    ];
    let checked = 0;
    for (const [status, response] of responses) {
      const schema = (response.content as Record<string, { schema: Json }> | undefined)?.['application/json']
        ?.schema;
      const narrowing = (schema?.allOf as Json[] | undefined)?.[1] as
        | { properties: { code: { enum: (keyof typeof ERROR_STATUS)[] }; status: { const: number } } }
        | undefined;
      if (!narrowing) continue;
      checked += 1;
      for (const code of narrowing.properties.code.enum) {
        expect(ERROR_STATUS[code]).toBe(narrowing.properties.status.const);
      }
      if (/^\d+$/.test(status)) expect(narrowing.properties.status.const).toBe(Number(status));
    }
    expect(checked).toBeGreaterThan(10);
  });

  it.each([
    ['listPets', [200, 400, 401, 405, 429, 500, 503]],
    ['createPet', [201, 400, 401, 405, 413, 415, 429, 500, 503]],
    ['getPet', [200, 400, 401, 404, 405, 429, 500, 503]],
  ])('declares every status %s answers with', (operationId, statuses) => {
    expect(Object.keys(operation(operationId).responses).map(Number)).toEqual(statuses);
  });

  it('declares both 400 codes of createPet', () => {
    const badRequest = operation('createPet').responses['400'] as { content: Json };
    expect(JSON.stringify(badRequest.content)).toContain('"enum":["VALIDATION_FAILED","INVALID_JSON"]');
  });
});

describe('the deprecated getPet', () => {
  it('is deprecated, with its removal date and replacement in the description', () => {
    const getPet = operation('getPet');
    expect(getPet.deprecated).toBe(true);
    expect(getPet.description).toContain('2030-12-05');
    expect(getPet.description).toContain('GET /pets?status=');
  });

  it('declares the Deprecation, Sunset and Link headers the function sends, with their values', () => {
    const headers = (operation('getPet').responses['200'] as { headers: Record<string, Json> }).headers;
    expect(Object.keys(headers).sort()).toEqual(Object.keys(GET_PET_DEPRECATION_HEADERS).sort());
    for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) {
      expect(document.components.headers[name]).toMatchObject({ required: true, schema: { const: value } });
    }
    expect(GET_PET_DEPRECATION_HEADERS.Sunset).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });
});

describe('examples', () => {
  const examplesIn = (
    node: unknown,
    pointer: string,
  ): { pointer: string; schema: string; value: unknown }[] => {
    if (node === null || typeof node !== 'object') return [];
    const here = node as Json;
    const found: { pointer: string; schema: string; value: unknown }[] = [];
    if (here.schema && here.examples && typeof here.examples === 'object') {
      for (const [name, example] of Object.entries(here.examples as Record<string, { value: unknown }>)) {
        found.push({
          pointer: `${pointer}/examples/${name}`,
          schema: `${pointer}/schema`,
          value: example.value,
        });
      }
    }
    for (const [key, child] of Object.entries(here)) {
      found.push(...examplesIn(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`));
    }
    return found;
  };

  it('are each valid against the schema beside them', () => {
    const examples = examplesIn(document, '#');
    expect(examples.length).toBeGreaterThan(15);
    for (const { pointer, schema, value } of examples) {
      expect({ pointer, problems: contract.validate(schema, value) }).toEqual({ pointer, problems: [] });
    }
  });
});
