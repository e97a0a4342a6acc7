import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { streamedPetOf } from '#shared/adapters/dynamodb/pet-stream';
import { Pet } from '#shared/domain/pet';
import { envelopeOf, PET_EVENTS, PET_FIELDS, petEventOf } from '#shared/events/pet-events';
import { exampleEnvelope } from '#tools/asyncapi/build-document';
import { pet, streamRecord } from '../support/stream-records';

/** What each write's event says, from the table's stream record to the event's detail. */

const at = new Date('2026-12-07T15:36:12Z');
const eventOf = (record: ReturnType<typeof streamRecord>) => {
  const streamed = streamedPetOf(record);
  if (streamed.kind !== 'pet') throw new Error(`Not a pet: ${streamed.kind}`);
  return petEventOf(streamed.change);
};

describe('the event of a write', () => {
  it('is PetCreated for a new pet, at version 1, with the pet and no previous', () => {
    const event = eventOf(streamRecord(1, { after: { pet: pet(12), version: 1 }, at }));

    expect(event).toEqual({
      detailType: 'PetCreated',
      detail: {
        eventId: 'pet-12-v1',
        petId: 12,
        version: 1,
        occurredAt: '2026-12-07T15:36:12.000Z',
        pet: pet(12),
      },
    });
  });

  it('is PetChanged for a change, with the pet after and before it and the fields whose value changed', () => {
    const before = { pet: pet(12), version: 2 };
    const after = { pet: pet(12, { status: 'sold', name: 'Rex II' }), version: 3 };

    const event = eventOf(streamRecord(2, { before, after, at }));

    expect(event).toEqual({
      detailType: 'PetChanged',
      detail: {
        eventId: 'pet-12-v3',
        petId: 12,
        version: 3,
        occurredAt: '2026-12-07T15:36:12.000Z',
        pet: after.pet,
        previous: before.pet,
        changed: ['name', 'status'],
      },
    });
  });

  it('lists no field for a change that set every field to the value it had, whose version still grew', () => {
    const event = eventOf(
      streamRecord(3, { before: { pet: pet(5), version: 1 }, after: { pet: pet(5), version: 2 } }),
    );

    expect(event?.detail).toMatchObject({ eventId: 'pet-5-v2', changed: [] });
  });

  it("is PetRemoved for a removal, its version the pet's last plus one, with the pet as it was", () => {
    const event = eventOf(streamRecord(4, { before: { pet: pet(12, { status: 'sold' }), version: 3 }, at }));

    expect(event).toEqual({
      detailType: 'PetRemoved',
      detail: {
        eventId: 'pet-12-v4',
        petId: 12,
        version: 4,
        occurredAt: '2026-12-07T15:36:12.000Z',
        previous: pet(12, { status: 'sold' }),
      },
    });
  });

  it('is none for a change whose version did not grow by one: not a write of the service', () => {
    const unchanged = streamRecord(5, {
      before: { pet: pet(1), version: 2 },
      after: { pet: pet(1, { status: 'sold' }), version: 2 },
    });
    const skipped = streamRecord(6, {
      before: { pet: pet(1), version: 2 },
      after: { pet: pet(1, { status: 'sold' }), version: 4 },
    });

    expect([eventOf(unchanged), eventOf(skipped)]).toEqual([undefined, undefined]);
  });

  it('names as a change every field Pet declares, in its order, and no other', () => {
    expect(PET_FIELDS).toEqual(Object.keys(Pet.pipe[0].entries));
    const every = pet(7, { name: 'Other', categoryId: 9, status: 'pending' });

    const event = eventOf(
      streamRecord(7, { before: { pet: pet(8), version: 1 }, after: { pet: every, version: 2 } }),
    );

    expect(event?.detail).toMatchObject({ changed: PET_FIELDS });
  });
});

describe('a record of the stream', () => {
  it('that is not a pet (its key is not a number id) is no pet change', () => {
    const record = streamRecord(1, { after: { name: 'ids', next: 41 } });

    expect(streamedPetOf(record)).toEqual({ kind: 'other', sequenceNumber: '000000000000000000001' });
  });

  it('whose image is not a valid stored pet is unreadable, naming what is wrong and never its values', () => {
    const record = streamRecord(2, { after: { id: 3, name: '', categoryId: 1, status: 'gone', version: 1 } });

    const streamed = streamedPetOf(record);

    expect(streamed).toMatchObject({ kind: 'unreadable', petId: 3, sequenceNumber: '000000000000000000002' });
    expect(JSON.stringify(streamed)).not.toContain('gone');
  });
});

describe('the envelope', () => {
  it.each(Object.keys(PET_EVENTS) as (keyof typeof PET_EVENTS)[])(
    "of %s takes the document's example, made by the code that makes the events",
    (name) => {
      expect(v.safeParse(envelopeOf(name), exampleEnvelope(name)).issues).toBeUndefined();
    },
  );
});
