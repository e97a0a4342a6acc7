import * as v from 'valibot';
import { petIdsTable } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { idempotencyTable } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { petsTable } from '#shared/adapters/dynamodb/pets-table';
import { operationFunction } from '#shared/composition/function';
import { REQUEST_BUDGET_MS } from '#shared/deadline';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '#shared/domain/errors';
import { DEFAULT_PET_STATUS, FIRST_VERSION, NewPet, Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import { ETAG_HEADER, etagOf } from '#shared/http/conditional';
import type { FunctionDependencies } from '#shared/http/endpoint';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
} from '#shared/http/idempotency-headers';
import { MAX_BODY_BYTES } from '#shared/http/limits';
import { jsonEndpoint } from '#shared/http/middleware/json-body';
import { petLocation } from '#shared/http/paths';
import { created } from '#shared/http/responses';
import { createPetMetrics, NO_METRICS, type PetMetrics } from '#shared/observability/metrics';
import { defineOperation } from '#shared/operations/operation';
import { describe } from '#shared/schema/describe';
import { object } from '#shared/schema/objects';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a key and its answer are kept: a day covers any client's retries. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

const IDEMPOTENCY_KEY_RULE = `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`;

/** The key a client sends to make a create safe to retry (IETF draft "The Idempotency-Key HTTP Header Field"). */
export const IdempotencyKey = describe(
  v.pipe(
    v.string(IDEMPOTENCY_KEY_RULE),
    v.minLength(1, IDEMPOTENCY_KEY_RULE),
    v.maxLength(IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_RULE),
    v.regex(/^[\x20-\x7E]*$/, IDEMPOTENCY_KEY_RULE),
  ),
  { example: '3f2b9e4c-8d1a-4f6e-9b7c-2a5d0e1f3c4b' },
);

/** The header as validation reads it (lower case, after header normalisation). */
const KEY_HEADER: Lowercase<typeof IDEMPOTENCY_KEY_HEADER> = 'idempotency-key';

export const CreatePetHeaders = object({
  [KEY_HEADER]: describe(v.optional(IdempotencyKey), {
    description: `Makes the create safe to retry: a key of your choosing (a UUID, say), new for each animal you mean to add. Repeated within 24 hours with the same body, the first answer (201, same body and \`Location\`) is sent again with \`${IDEMPOTENT_REPLAYED_HEADER}: true\` and no second animal is added; with another body, 422; while the first request is still being processed, 409. Keys are per API key. A failure (4xx, 5xx) is not replayed: a retry is processed again, and after a 5xx or no answer it adds the animal only if no earlier request with the key did.`,
  }),
});

/** `POST /pets`: adds a pet; 201 with the pet and its `Location`; idempotent with `Idempotency-Key`. */
export const createPet = defineOperation({
  operationId: 'createPet',
  method: 'POST',
  path: '/pets',
  summary: 'Add an animal',
  description: [
    `Adds an animal. The service assigns its \`id\`; \`status\` is \`${DEFAULT_PET_STATUS}\` when omitted.`,
    `The body must be a JSON object of at most ${MAX_BODY_BYTES / 1024} KiB, sent as \`application/json\`. Unknown fields (including \`id\`) are refused, so a misspelt field never silently creates an animal.`,
    `With an \`${IDEMPOTENCY_KEY_HEADER}\` header the request can be retried safely, after a timeout, a 503 or no answer at all: the animal is added once, and every repeat gets the first answer. Without one, a request answered 201 or 4xx added one animal or none; one that got a 5xx or no answer may have added it, and sending it again may add a second.`,
  ].join('\n\n'),
  request: { headers: CreatePetHeaders, body: NewPet },
  responses: {
    201: {
      description: 'The animal was added; the body is the animal with its `id`.',
      body: Pet,
      headers: {
        Location: {
          description: 'Where the new animal can be read.',
          required: true,
          schema: describe(v.string(), { format: 'uri-reference' }),
          example: petLocation(1),
        },
        ...ETAG_HEADER,
        [IDEMPOTENT_REPLAYED_HEADER]: {
          description: `\`true\` when this is the answer an earlier request with the same \`${IDEMPOTENCY_KEY_HEADER}\` got, sent again. Absent when this request added the animal, or finished adding it for an earlier request with the key that got no answer or a 503.`,
          required: false,
          schema: v.literal('true'),
          example: 'true',
        },
      },
      example: { id: 1, name: 'Rex', categoryId: 3, status: DEFAULT_PET_STATUS },
    },
  },
  errors: [
    {
      summary: `An earlier request with the same ${IDEMPOTENCY_KEY_HEADER} is still in progress`,
      example: () => new IdempotencyKeyInUseError(),
    },
    {
      summary: `The ${IDEMPOTENCY_KEY_HEADER} was used for a request with another body`,
      example: () => new IdempotencyKeyReusedError(),
    },
  ],
  idempotency: { header: KEY_HEADER, retentionSeconds: IDEMPOTENCY_RETENTION_SECONDS },
  examples: {
    requests: {
      minimal: { summary: 'Name and category only', value: { name: 'Rex', categoryId: 3 } },
      withStatus: { summary: 'With a status', value: { name: 'Tom', categoryId: 7, status: 'pending' } },
    },
    invalid: {
      summary: 'An empty name, categoryId 0 and a misspelt field',
      body: { name: '', categoryId: 0, staus: 'sold' },
    },
  },
});

export interface CreatePetDependencies extends FunctionDependencies {
  /** The create's service: its pets, ids and idempotency records. */
  readonly pets: PetService;
  readonly metrics: PetMetrics;
}

/**
 * createPet's endpoint: adds a pet; 201 with the pet and where to read it. With an
 * Idempotency-Key, once: a repeat gets the first pet, marked `Idempotent-Replayed: true`.
 */
export const createPetEndpoint = ({ pets, metrics, ...dependencies }: CreatePetDependencies) =>
  jsonEndpoint(createPet, dependencies, async ({ body, headers }, event) => {
    const { pet, replayed } = await pets.create(body, idempotencyKeyOf(event, headers['idempotency-key']));
    if (!replayed) metrics.countPetCreated();
    // A new pet's first version; a replay's too, as the first answer had it.
    const location = { Location: petLocation(pet.id), ETag: etagOf(FIRST_VERSION) };
    return created(pet, replayed ? { ...location, [IDEMPOTENT_REPLAYED_HEADER]: 'true' } : location);
  });

/**
 * createPet's function: the pets table, the id counter and the idempotency records, all on one
 * client, behind the create's service (exactly once, shared/domain/pet-service.ts). A record's
 * lock lasts as long as a request may: past it, the request has given up, and a retry may take
 * over. And PetsCreated, the one function's metric (shared/observability/metrics.ts).
 */
export const createPetFunction = operationFunction(createPet, {
  uses: {
    ids: petIdsTable.allow('next'),
    pets: petsTable.allow('create'),
    idempotency: idempotencyTable.allow('records'),
  },
  handler: ({ pets, ids, idempotency, ...dependencies }, config) =>
    createPetEndpoint({
      pets: new PetService({
        pets,
        ids,
        records: idempotency.records({
          keyPrefix: createPet.operationId,
          retentionSeconds: createPet.idempotency.retentionSeconds,
        }),
        lockMs: REQUEST_BUDGET_MS,
        problems: dependencies.logger,
      }),
      metrics: config?.metrics ? createPetMetrics(config) : NO_METRICS,
      ...dependencies,
    }),
});
