import { randomUUID } from 'node:crypto';
import {
  IdempotencyAlreadyInProgressError,
  IdempotencyInconsistentStateError,
  IdempotencyItemNotFoundError,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDynamoDbClient, documentClientOf } from '#shared/adapters/dynamodb/client';
import { DynamoDbIdSequence, PET_ID_SEQUENCE } from '#shared/adapters/dynamodb/dynamodb-id-sequence';
import { createIdempotencyStore } from '#shared/adapters/dynamodb/dynamodb-idempotency-store';
import { DynamoDbPetRepository } from '#shared/adapters/dynamodb/dynamodb-pet-repository';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  StoreUnavailableError,
} from '#shared/domain/errors';
import type { Pet } from '#shared/domain/pet';
import { PetService } from '#shared/domain/pet-service';
import { createPetHandler } from '#shared/handlers/create-pet';
import { translateIdempotencyError } from '#shared/http/middleware/idempotency';
import { createLogger } from '#shared/observability/logger';
import { NO_METRICS } from '#shared/observability/metrics';
import { lambdaContext } from '#tools/lambda/context';
import { idempotentCreateEvent } from '../support/create-events';
import { FaultProxy } from '../support/fault-proxy';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * createPet with an Idempotency-Key on DynamoDB Local, in the situations around a request in
 * flight: a repeat meanwhile, and an idempotency table that fails once the pet is stored. The
 * table's failures come from a TCP proxy that drops its connections, as a network would.
 */

let tables: TestTables;
let proxy: FaultProxy;
beforeAll(async () => {
  tables = await createTestTables('idempotent-creates');
  proxy = await FaultProxy.start(tables.endpoint);
});
afterAll(() => proxy.close());

/** createPet on these tables; `create` runs before the pet is stored (to hold it, or fail it). */
const createPetWith = (
  options: { beforeCreate?: (pet: Pet) => Promise<void>; storeEndpoint?: string } = {},
) => {
  const documents = documentClientOf(createDynamoDbClient({ endpoint: tables.endpoint }));
  const real = new DynamoDbPetRepository({ client: documents, petsTable: tables.names.pets });
  const created: Pet[] = [];
  // Errors only: what is logged of a failure is checked, as written (errorsLoggedBy).
  const logger = createLogger({ logLevel: 'ERROR' });
  const handler = createPetHandler({
    pets: new PetService({
      pets: {
        get: (id) => real.get(id),
        list: (listing) => real.list(listing),
        create: async (pet) => {
          await options.beforeCreate?.(pet);
          await real.create(pet);
          created.push(pet);
        },
      },
      ids: new DynamoDbIdSequence({
        client: documents,
        countersTable: tables.names.counters,
        sequence: PET_ID_SEQUENCE,
      }),
    }),
    idempotencyStore: createIdempotencyStore({
      client: createDynamoDbClient({ endpoint: options.storeEndpoint ?? tables.endpoint }),
      idempotencyTable: tables.names.idempotency,
    }),
    logger,
    metrics: NO_METRICS,
  });
  const post = (key: string, body: unknown) =>
    handler(
      idempotentCreateEvent(key, body, 'key-idempotent'),
      lambdaContext('createPet', { timeoutMs: 15_000 }),
    ) as Promise<APIGatewayProxyResult>;
  return { post, created };
};

/** `run`'s result, and the lines it logged at ERROR (Powertools writes them to stderr, as JSON). */
const errorsLoggedBy = async <T>(run: () => Promise<T>) => {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const result = await run();
    const lines = written
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; message: string; error?: { name?: string } });
    return { result, errors: lines.filter((line) => line.level === 'ERROR') };
  } finally {
    spy.mockRestore();
  }
};

describe('a repeat of a create still in flight', () => {
  it('is refused with 409 and Retry-After, and leaves the first request its record to complete', async () => {
    let entered: () => void = () => undefined;
    let release: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holds = 1;
    const { post, created } = createPetWith({
      beforeCreate: async () => {
        if (holds-- <= 0) return;
        entered();
        await released;
      },
    });
    const key = randomUUID();
    const body = { name: 'Once', categoryId: 5 };

    const first = post(key, body);
    await inFlight;
    const second = await post(key, body);
    const third = await post(key, body);
    release();
    const answer = await first;
    const replay = await post(key, body);

    expect(second.statusCode).toBe(409);
    expect(JSON.parse(second.body)).toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_USE',
      message:
        'A request with this Idempotency-Key is still in progress; retry after Retry-After seconds to get its answer',
    });
    expect(second.headers?.['Retry-After']).toBe('1');
    // Had the refusal deleted the first request's record, this one would have created a pet.
    expect(third.statusCode).toBe(409);
    expect(answer.statusCode).toBe(201);
    expect([replay.statusCode, replay.body, replay.headers?.['Idempotent-Replayed']]).toEqual([
      201,
      answer.body,
      'true',
    ]);
    expect(created).toHaveLength(1);
  });
});

describe('an idempotency table that fails after the pet is stored', () => {
  it('still answers 201, and logs that the record was not completed', async () => {
    const { post } = createPetWith({
      storeEndpoint: proxy.endpoint,
      beforeCreate: async () => proxy.drop(),
    });

    try {
      const { result: response, errors } = await errorsLoggedBy(() =>
        post(randomUUID(), { name: 'Stored', categoryId: 5 }),
      );

      expect(response.statusCode).toBe(201);
      expect(errors).toContainEqual(
        expect.objectContaining({
          message: 'Idempotency record not completed',
          error: expect.objectContaining({ name: 'StoreUnavailableError' }),
        }),
      );
    } finally {
      proxy.resume();
    }
  });

  it("answers the request's own failure, and logs that the record was not deleted", async () => {
    const { post } = createPetWith({
      storeEndpoint: proxy.endpoint,
      beforeCreate: async () => {
        proxy.drop();
        throw new StoreUnavailableError('DynamoDB PutItem failed: ThrottlingException');
      },
    });

    try {
      const { result: response, errors } = await errorsLoggedBy(() =>
        post(randomUUID(), { name: 'Failed', categoryId: 5 }),
      );

      expect(response.statusCode).toBe(503);
      expect(errors).toContainEqual(
        expect.objectContaining({
          message: 'Idempotency record not deleted',
          error: expect.objectContaining({ name: 'StoreUnavailableError' }),
        }),
      );
    } finally {
      proxy.resume();
    }
  });
});

describe("Powertools' idempotency errors", () => {
  it('become the domain’s: in progress or changing meanwhile is in use, another body is reused', () => {
    const cause = new StoreUnavailableError('DynamoDB GetItem failed: TimeoutError');
    const layerFailure = new IdempotencyPersistenceLayerError('Failed to save', { cause });
    const other = new Error('something else');

    expect(translateIdempotencyError(new IdempotencyAlreadyInProgressError('busy'))).toBeInstanceOf(
      IdempotencyKeyInUseError,
    );
    expect(translateIdempotencyError(new IdempotencyInconsistentStateError('expired'))).toBeInstanceOf(
      IdempotencyKeyInUseError,
    );
    expect(translateIdempotencyError(new IdempotencyItemNotFoundError('gone'))).toBeInstanceOf(
      IdempotencyKeyInUseError,
    );
    expect(translateIdempotencyError(new IdempotencyValidationError('other body'))).toBeInstanceOf(
      IdempotencyKeyReusedError,
    );
    expect(translateIdempotencyError(layerFailure)).toBe(cause);
    expect(translateIdempotencyError(new IdempotencyPersistenceLayerError('no cause'))).toBeInstanceOf(
      IdempotencyPersistenceLayerError,
    );
    expect(translateIdempotencyError(other)).toBe(other);
  });

  it('are kept as the cause of the domain error', () => {
    const busy = new IdempotencyAlreadyInProgressError('busy');
    const changing = new IdempotencyItemNotFoundError('gone');
    const reused = new IdempotencyValidationError('other body');

    expect((translateIdempotencyError(busy) as Error).cause).toBe(busy);
    expect((translateIdempotencyError(changing) as Error).cause).toBe(changing);
    expect((translateIdempotencyError(reused) as Error).cause).toBe(reused);
  });
});
