import { petsTable } from '#shared/adapters/dynamodb/pets-table';
import { operationFunction } from '#shared/composition/function';
import { PetNotFoundError, PetVersionMismatchError } from '#shared/domain/errors';
import { Pet } from '#shared/domain/pet';
import {
  ETAG_HEADER,
  etagOf,
  IfMatchOnRead,
  IfNoneMatchOnRead,
  isModifiedFor,
} from '#shared/http/conditional';
import { httpEndpoint } from '#shared/http/endpoint';
import { PETS_PATH } from '#shared/http/paths';
import { PetIdPath } from '#shared/http/pet-path';
import { notModified, ok } from '#shared/http/responses';
import { defineOperation } from '#shared/operations/operation';
import { object } from '#shared/schema/objects';

const DEPRECATED_AT = new Date('2026-11-21T00:00:00Z');
const SUNSET_AT = new Date('2030-12-05T00:00:00Z');
const day = (date: Date) => date.toISOString().slice(0, 10);

/** `GET /pets/{petId}` (deprecated, still served): one pet, with the deprecation headers. */
export const getPet = defineOperation({
  operationId: 'getPet',
  method: 'GET',
  path: '/pets/{petId}',
  summary: 'Get an animal (deprecated)',
  description: [
    `**Deprecated** since ${day(DEPRECATED_AT)}; removed on ${day(SUNSET_AT)}. Use \`GET /pets?status=\` (\`listPets\`) instead.`,
    'Still served until then. Every answer of the function itself (success, 400, 404, and its own 500 and 503) carries `Deprecation`, `Sunset` and `Link` headers; answers API Gateway gives itself (401, 429) do not.',
    "With `If-None-Match` naming the animal's ETag, 304 and no body: the copy the client holds is current. With `If-Match` naming none of its ETags, 412.",
  ].join('\n\n'),
  request: {
    path: PetIdPath,
    headers: object({ 'if-match': IfMatchOnRead, 'if-none-match': IfNoneMatchOnRead }),
  },
  responses: {
    200: {
      description: 'The animal, with its ETag.',
      body: Pet,
      headers: ETAG_HEADER,
      example: { id: 1, name: 'Rex', categoryId: 3, status: 'available' },
    },
    304: {
      description: 'Not modified: the animal is at an ETag `If-None-Match` names. No body; its ETag.',
      headers: ETAG_HEADER,
    },
  },
  errors: [
    { summary: 'No animal has this id', example: () => new PetNotFoundError(987654321) },
    {
      summary: 'The animal is at none of the ETags in If-Match',
      example: () => new PetVersionMismatchError(1),
    },
  ],
  deprecation: { deprecatedAt: DEPRECATED_AT, sunsetAt: SUNSET_AT, successor: PETS_PATH },
  examples: { invalid: { summary: '`petId` is not a positive integer', path: { petId: 'abc' } } },
});

/** getPet's function: one strongly consistent read of the pets table; the pet and its ETag, or 304 or 412. */
export const getPetFunction = operationFunction(getPet, {
  uses: { pets: petsTable.allow('get') },
  handler: ({ pets, ...dependencies }) =>
    httpEndpoint(getPet, dependencies, async ({ path, headers }) => {
      const found = await pets.get(path.petId);
      if (!found) throw new PetNotFoundError(path.petId);
      const etag = { ETag: etagOf(found.version) };
      return isModifiedFor(headers, path.petId, found.version) ? ok(found.pet, etag) : notModified(etag);
    }),
});
