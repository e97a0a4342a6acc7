import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { toVersionedPet } from '#shared/adapters/dynamodb/pet-items';
import { PETS_TABLE } from '#shared/adapters/dynamodb/table-design';
import { InvalidStoredItemError } from '#shared/domain/errors';
import type { PetChange } from '#shared/events/pet-events';

/**
 * A record of the pets table's stream, as Lambda passes it to a function: "Process DynamoDB
 * records with Lambda" (its example event), with `NEW_AND_OLD_IMAGES`: INSERT has the new image,
 * MODIFY both, REMOVE the old one; `ApproximateCreationDateTime` in epoch seconds.
 */
export type StreamedPet =
  /** A write to a pet: the pet before and after it. */
  | {
      readonly kind: 'pet';
      readonly sequenceNumber: string;
      readonly petId: number;
      readonly change: PetChange;
    }
  /** A pet's image that is not a valid stored pet: never published, nor skipped silently. */
  | {
      readonly kind: 'unreadable';
      readonly sequenceNumber: string;
      readonly petId: number;
      readonly problems: readonly string[];
    }
  /** An item that is not a pet (its key is not a pet's): nothing to publish. */
  | { readonly kind: 'other'; readonly sequenceNumber: string };

type Image = Readonly<Record<string, AttributeValue>>;

const itemOf = (image: Image | undefined): Record<string, unknown> | undefined =>
  image && unmarshall(image as Record<string, AttributeValue>);

/** The pet id a record's key names, or undefined when the key is not a pet's (`id`, a number). */
const petIdOf = (record: DynamoDBRecord): number | undefined => {
  const key = record.dynamodb?.Keys?.[PETS_TABLE.partitionKey.name]?.N;
  const id = key === undefined ? Number.NaN : Number(key);
  return Number.isSafeInteger(id) ? id : undefined;
};

/** The record's sequence number, which its batch item failure names. */
export const sequenceNumberOf = (record: DynamoDBRecord): string => record.dynamodb?.SequenceNumber ?? '';

/** What a record of the pets table's stream says of a pet. */
export const streamedPetOf = (record: DynamoDBRecord): StreamedPet => {
  const sequenceNumber = sequenceNumberOf(record);
  const petId = petIdOf(record);
  if (petId === undefined) return { kind: 'other', sequenceNumber };
  const stream = record.dynamodb ?? {};
  const [before, after] = [stream.OldImage, stream.NewImage].map((image) => itemOf(image as Image));
  try {
    const change = {
      ...(before ? { before: toVersionedPet(before) } : {}),
      ...(after ? { after: toVersionedPet(after) } : {}),
      at: new Date((stream.ApproximateCreationDateTime ?? 0) * 1_000),
    };
    return { kind: 'pet', sequenceNumber, petId, change };
  } catch (error) {
    if (!(error instanceof InvalidStoredItemError)) throw error;
    return { kind: 'unreadable', sequenceNumber, petId, problems: error.problems };
  }
};
