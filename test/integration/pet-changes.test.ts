import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { listingOf, PETS_BY_STATUS } from '#functions/list-pets';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import { PetsTable } from '#shared/adapters/dynamodb/pets-table';
import { InvalidStoredItemError, PetNotFoundError, PetVersionMismatchError } from '#shared/domain/errors';
import type { ListPosition, Pet, PetStatus } from '#shared/domain/pet';
import { ANY_VERSION } from '#shared/domain/version-condition';
import { MAX_ENTITY_TAGS } from '#shared/http/limits';
import { FaultProxy } from '../support/fault-proxy';
import { createTestTables, type TestTables } from '../support/tables';

/**
 * Changes and removals of pets on DynamoDB Local: one conditional write each, versions that every
 * change moves on, status listings that follow at once, races under one version, and retries of
 * a write whose answer was lost.
 */

let tables: TestTables;
let repository: PetsTable;
let nextId = 1;
beforeAll(async () => {
  tables = await createTestTables('changes');
  repository = new PetsTable({
    client: createDocumentClient({ endpoint: tables.endpoint }),
    petsTable: tables.names.pets,
  });
});

const stored = async (status: PetStatus = 'available'): Promise<Pet> => {
  const pet: Pet = { id: nextId++, name: `Pet ${nextId}`, categoryId: 1, status };
  await repository.create(pet);
  return pet;
};

/** Every id a listing by `status` shows, walked to its end. */
const idsWith = async (status: PetStatus): Promise<number[]> => {
  const ids: number[] = [];
  let after: readonly ListPosition[] | undefined;
  do {
    const page = await repository.page(PETS_BY_STATUS, {
      limit: 100,
      filter: status,
      ...(after ? { after } : {}),
    });
    ids.push(...page.pets.map((pet) => pet.id));
    after = page.next;
  } while (after);
  return ids;
};

describe('a change', () => {
  it('sets the fields the patch names, keeps the others, and moves the pet on by one version', async () => {
    const pet = await stored();

    const changed = await repository.update(pet.id, { name: 'Renamed' }, ANY_VERSION);

    expect(changed).toEqual({ pet: { ...pet, name: 'Renamed' }, version: 2 });
    expect(await repository.get(pet.id)).toEqual(changed);
  });

  it('moves the pet between status listings at once', async () => {
    const pet = await stored('available');

    await repository.update(pet.id, { status: 'sold' }, { versions: [1] });

    expect(await idsWith('sold')).toContain(pet.id);
    expect(await idsWith('available')).not.toContain(pet.id);
  });

  it('applies under a list naming its version, and changes nothing under a stale one', async () => {
    const pet = await stored();
    await repository.update(pet.id, { categoryId: 9 }, { versions: [7, 1] });

    await expect(repository.update(pet.id, { status: 'sold' }, { versions: [1] })).rejects.toBeInstanceOf(
      PetVersionMismatchError,
    );
    await expect(repository.update(pet.id, { status: 'sold' }, { versions: [] })).rejects.toBeInstanceOf(
      PetVersionMismatchError,
    );
    expect(await repository.get(pet.id)).toEqual({ pet: { ...pet, categoryId: 9 }, version: 2 });
  });

  it('changes nothing at a version it excludes, and applies at any other, within the versions it names', async () => {
    const pet = await stored();

    await expect(
      repository.update(pet.id, { status: 'sold' }, { versions: undefined, except: [3, 1] }),
    ).rejects.toBeInstanceOf(PetVersionMismatchError);
    await expect(
      repository.update(pet.id, { status: 'sold' }, { versions: [1], except: [1] }),
    ).rejects.toBeInstanceOf(PetVersionMismatchError);
    expect(await repository.get(pet.id)).toEqual({ pet, version: 1 });
    expect(await repository.update(pet.id, { status: 'sold' }, { versions: [1, 2], except: [2] })).toEqual({
      pet: { ...pet, status: 'sold' },
      version: 2,
    });
  });

  it('is written under as many versions, and as many exceptions, as a request may name', async () => {
    const pet = await stored();
    const versions = (first: number) => Array.from({ length: MAX_ENTITY_TAGS }, (_, index) => first + index);

    await expect(
      repository.update(pet.id, { status: 'sold' }, { versions: versions(2), except: versions(1) }),
    ).rejects.toBeInstanceOf(PetVersionMismatchError);
    expect(
      await repository.update(pet.id, { status: 'sold' }, { versions: versions(1), except: versions(2) }),
    ).toEqual({ pet: { ...pet, status: 'sold' }, version: 2 });
    await repository.delete(pet.id, { versions: versions(2), except: versions(3) });
    expect(await repository.get(pet.id)).toBeUndefined();
  });

  it('of a missing pet is PetNotFoundError, with or without a version, and stores nothing', async () => {
    const id = nextId++;

    await expect(repository.update(id, { name: 'Ghost' }, ANY_VERSION)).rejects.toBeInstanceOf(
      PetNotFoundError,
    );
    await expect(repository.update(id, { name: 'Ghost' }, { versions: [1] })).rejects.toBeInstanceOf(
      PetNotFoundError,
    );
    expect(await repository.get(id)).toBeUndefined();
  });

  it('never serves an item without a version: every pet is written with one, so it is not a pet', async () => {
    const id = nextId++;
    const { version: _none, ...unversioned } = petItem({ id, name: 'Odd', categoryId: 1, status: 'pending' });
    await createDocumentClient({ endpoint: tables.endpoint }).send(
      new PutCommand({ TableName: tables.names.pets, Item: unversioned }),
    );

    await expect(repository.get(id)).rejects.toBeInstanceOf(InvalidStoredItemError);
  });

  it('of ten at once under one version: exactly one applies, the nine others change nothing', async () => {
    const pet = await stored();

    // The same patch ten times: a call's own earlier attempt is told from another call by the
    // change's id, not by its content.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => repository.update(pet.id, { status: 'sold' }, { versions: [1] })),
    );

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(refused).toHaveLength(9);
    for (const reason of refused) expect(reason).toBeInstanceOf(PetVersionMismatchError);
    expect((await repository.get(pet.id))?.version).toBe(2);
  });
});

describe('a removal', () => {
  it('removes the pet from the table and its status listing; a second is PetNotFoundError', async () => {
    const pet = await stored('pending');

    await repository.delete(pet.id, ANY_VERSION);

    expect(await repository.get(pet.id)).toBeUndefined();
    expect(await idsWith('pending')).not.toContain(pet.id);
    await expect(repository.delete(pet.id, ANY_VERSION)).rejects.toBeInstanceOf(PetNotFoundError);
    await expect(repository.delete(pet.id, { versions: [1] })).rejects.toBeInstanceOf(PetNotFoundError);
  });

  it('under a stale version is PetVersionMismatchError, and the pet stays', async () => {
    const pet = await stored();
    await repository.update(pet.id, { name: 'Moved on' }, ANY_VERSION);

    await expect(repository.delete(pet.id, { versions: [1] })).rejects.toBeInstanceOf(
      PetVersionMismatchError,
    );
    expect(await repository.get(pet.id)).toMatchObject({ version: 2 });
    await repository.delete(pet.id, { versions: [2] });
    expect(await repository.get(pet.id)).toBeUndefined();
  });
  it('at a version it excludes is PetVersionMismatchError, and the pet stays; of a missing pet, PetNotFoundError', async () => {
    const pet = await stored();

    await expect(repository.delete(pet.id, { versions: undefined, except: [1] })).rejects.toBeInstanceOf(
      PetVersionMismatchError,
    );
    expect(await repository.get(pet.id)).toMatchObject({ version: 1 });
    await repository.delete(pet.id, { versions: undefined, except: [2] });
    await expect(repository.delete(pet.id, { versions: undefined, except: [1] })).rejects.toBeInstanceOf(
      PetNotFoundError,
    );
  });
});

describe('walks beside changes and removals', () => {
  it('see a pet present throughout once, unfiltered and by its status, while others move and go', async () => {
    const kept = await Promise.all(Array.from({ length: 12 }, () => stored('available')));
    const moving = await Promise.all(Array.from({ length: 24 }, () => stored('available')));
    const keptIds = new Set(kept.map((pet) => pet.id));

    const walk = async (status?: PetStatus): Promise<number[]> => {
      const seen: number[] = [];
      let after: readonly ListPosition[] | undefined;
      let turn = 0;
      do {
        const [page] = await Promise.all([
          repository.page(listingOf(status), { limit: 3, filter: status, ...(after ? { after } : {}) }),
          // Beside each page: a pet moves to another status and back, and another goes.
          ...moving
            .slice(turn * 2, turn * 2 + 2)
            .map((pet, index) =>
              index === 0
                ? repository
                    .update(pet.id, { status: 'sold' }, ANY_VERSION)
                    .then(() => repository.update(pet.id, { status: 'available' }, ANY_VERSION))
                : repository.delete(pet.id, ANY_VERSION).catch(() => undefined),
            ),
        ]);
        seen.push(...page.pets.map((pet) => pet.id));
        after = page.next;
        turn += 1;
      } while (after);
      return seen;
    };

    for (const status of [undefined, 'available'] as const) {
      const seen = await walk(status);
      const keptSeen = seen.filter((id) => keptIds.has(id));
      expect(
        keptSeen.sort((a, b) => a - b),
        `walk ${status ?? 'unfiltered'}`,
      ).toEqual([...keptIds].sort((a, b) => a - b));
      expect(new Set(seen).size).toBe(seen.length);
    }
  });
});

describe('a write whose answer was lost, sent again by the SDK', () => {
  it('is a change that succeeds once: the retry meets its own change, at one version more', async () => {
    const pet = await stored();
    const proxy = await FaultProxy.start(tables.endpoint);
    try {
      const viaProxy = new PetsTable({
        client: createDocumentClient({ endpoint: proxy.endpoint }),
        petsTable: tables.names.pets,
      });
      proxy.failAnswers({ operation: 'UpdateItem', table: tables.names.pets, fate: 'drop', times: 1 });

      const changed = await viaProxy.update(pet.id, { status: 'pending' }, { versions: [1] });

      await proxy.answersFailed(1);
      expect(changed).toEqual({ pet: { ...pet, status: 'pending' }, version: 2 });
      expect(await repository.get(pet.id)).toEqual(changed);
    } finally {
      await proxy.close();
    }
  });

  it('is a removal that succeeds: the retry finds the pet gone, as the first attempt left it', async () => {
    const pet = await stored();
    const proxy = await FaultProxy.start(tables.endpoint);
    try {
      const viaProxy = new PetsTable({
        client: createDocumentClient({ endpoint: proxy.endpoint }),
        petsTable: tables.names.pets,
      });
      proxy.failAnswers({
        operation: 'DeleteItem',
        table: tables.names.pets,
        fate: { delayMs: 1_500 },
        times: 1,
      });

      await viaProxy.delete(pet.id, { versions: [1] });

      await proxy.answersFailed(1);
      expect(await repository.get(pet.id)).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });
});
