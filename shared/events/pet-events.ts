import * as v from 'valibot';
import { FIRST_VERSION, MAX_ID, Pet, PetId, type VersionedPet } from '#shared/domain/pet';
import { describe } from '#shared/schema/describe';
import { object } from '#shared/schema/objects';

/**
 * The events a pet's changes publish (docs/asyncapi.yaml is made from these schemas): one per
 * acknowledged write, identified by the pet and the version the write made, so a consumer can
 * drop duplicates and order each pet's events.
 */

/** The `source` of every event of the service, as EventBridge delivers it. */
export const PET_EVENTS_SOURCE = 'pet-store.pets';

/** A pet's fields, in the order `Pet` declares them: the names a change lists in `changed`. */
export const PET_FIELDS = Object.keys(Pet.pipe[0].entries) as (keyof Pet)[];

const version = describe(
  v.pipe(
    v.number('must be an integer'),
    v.integer('must be an integer'),
    v.minValue(FIRST_VERSION, `must be at least ${FIRST_VERSION}`),
    v.maxValue(MAX_ID, `must be at most ${MAX_ID}`),
  ),
  {
    format: 'int64',
    description: `The pet's version after the write: ${FIRST_VERSION} for its creation, one more at each change, and for its removal the last version plus one. Its ETag is made from it.`,
  },
);

const eventId = describe(v.pipe(v.string(), v.regex(/^pet-[1-9]\d*-v[1-9]\d*$/u)), {
  description:
    '`pet-<petId>-v<version>`: the same for every copy of the event (delivery is at least once), so a consumer keeps one.',
  example: 'pet-12-v3',
});

const occurredAt = describe(v.pipe(v.string(), v.isoTimestamp()), {
  description:
    "When the table applied the write, as its stream records it: to the second (DynamoDB Streams' `ApproximateCreationDateTime`). Also the envelope's `time`.",
  example: '2026-12-07T15:36:12.000Z',
});

const PetField = describe(v.picklist(PET_FIELDS), {
  id: 'PetField',
  description: 'The name of a field of Pet.',
});

const common = { eventId, petId: PetId, version, occurredAt };

export const PetCreatedDetail = describe(object({ ...common, pet: Pet }), {
  id: 'PetCreated',
  description: 'An animal was added (`POST /pets`): `pet` is the animal as it was added.',
});

export const PetChangedDetail = describe(
  object({
    ...common,
    pet: Pet,
    previous: Pet,
    changed: describe(v.array(PetField), {
      description:
        'The fields whose value the change altered, in the order Pet declares them; empty when the patch set every field to the value it had (the version still grew).',
    }),
  }),
  {
    id: 'PetChanged',
    description:
      'An animal was changed (`PATCH /pets/{petId}`): `pet` is the animal after the change, `previous` before it.',
  },
);

export const PetRemovedDetail = describe(object({ ...common, previous: Pet }), {
  id: 'PetRemoved',
  description: 'An animal was removed (`DELETE /pets/{petId}`): `previous` is the animal as it was then.',
});

/** Every event, by its `detail-type`: the documents, the schema registry and the tests read this. */
export const PET_EVENTS = {
  PetCreated: { detail: PetCreatedDetail, summary: 'An animal was added' },
  PetChanged: { detail: PetChangedDetail, summary: 'An animal was changed' },
  PetRemoved: { detail: PetRemovedDetail, summary: 'An animal was removed' },
} as const;

export type PetEventName = keyof typeof PET_EVENTS;

export type PetEvent = {
  readonly [N in PetEventName]: {
    readonly detailType: N;
    readonly detail: v.InferOutput<(typeof PET_EVENTS)[N]['detail']>;
  };
}[PetEventName];

/** A write to a pet as the table's stream shows it: the pet before and after, and when. */
export interface PetChange {
  /** Absent for a creation. */
  readonly before?: VersionedPet;
  /** Absent for a removal. */
  readonly after?: VersionedPet;
  readonly at: Date;
}

export const eventIdOf = (petId: number, version: number): string => `pet-${petId}-v${version}`;

/**
 * The event of a write, or undefined for a change whose version did not grow by one: only the
 * service's own writes (each one more version) are published, so each pet's versions have no gap.
 */
export const petEventOf = ({ before, after, at }: PetChange): PetEvent | undefined => {
  const occurred = at.toISOString();
  if (after && !before) {
    const { pet, version } = after;
    const detail = { eventId: eventIdOf(pet.id, version), petId: pet.id, version, occurredAt: occurred, pet };
    return { detailType: 'PetCreated', detail };
  }
  if (after && before) {
    const { pet, version } = after;
    if (version !== before.version + 1) return undefined;
    const changed = PET_FIELDS.filter((field) => before.pet[field] !== pet[field]);
    return {
      detailType: 'PetChanged',
      detail: {
        eventId: eventIdOf(pet.id, version),
        petId: pet.id,
        version,
        occurredAt: occurred,
        pet,
        previous: before.pet,
        changed,
      },
    };
  }
  if (before) {
    const { pet } = before;
    const version = before.version + 1;
    const detail = {
      eventId: eventIdOf(pet.id, version),
      petId: pet.id,
      version,
      occurredAt: occurred,
      previous: pet,
    };
    return { detailType: 'PetRemoved', detail };
  }
  return undefined;
};

/**
 * An event as EventBridge delivers it to a target ("Amazon EventBridge events"), `detail` the
 * event's: what a consumer receives, and `npm start` writes.
 */
export const envelopeOf = <const N extends PetEventName>(name: N) =>
  describe(
    object({
      version: describe(v.literal('0'), { description: 'Always 0 (EventBridge sets it).' }),
      id: describe(v.string(), {
        description:
          "EventBridge's id of this copy of the event: a copy delivered again may have another. Keep copies apart by `detail.eventId`.",
      }),
      'detail-type': v.literal(name),
      source: v.literal(PET_EVENTS_SOURCE),
      account: describe(v.string(), { description: 'The AWS account of the stage.' }),
      time: describe(v.pipe(v.string(), v.isoTimestamp()), {
        description: '`detail.occurredAt`, to the second.',
      }),
      region: describe(v.string(), { description: 'The AWS Region of the stage.' }),
      resources: describe(v.array(v.string()), { description: 'Empty: a pet has no ARN.' }),
      detail: PET_EVENTS[name].detail,
    }),
    {
      id: `${name}Event`,
      description: `${PET_EVENTS[name].summary}, as EventBridge delivers it to a target.`,
    },
  );
