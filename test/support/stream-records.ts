import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import type { Pet } from '#shared/domain/pet';

/**
 * Records of the pets table's stream as Lambda passes them to a function ("Process DynamoDB
 * records with Lambda", its example event), the images as the adapter stores pets.
 */

export interface StoredVersion {
  readonly pet: Pet;
  readonly version: number;
}

const image = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue>;

const storedItem = ({ pet, version }: StoredVersion) => ({ ...petItem(pet), version });

/** A record of sequence number `sequence`: INSERT with `after` only, REMOVE with `before` only, else MODIFY. */
export const streamRecord = (
  sequence: number,
  {
    before,
    after,
    at = new Date('2026-12-07T15:36:12Z'),
  }: {
    readonly before?: StoredVersion | Record<string, unknown>;
    readonly after?: StoredVersion | Record<string, unknown>;
    readonly at?: Date;
  },
): DynamoDBRecord => {
  const item = (value: StoredVersion | Record<string, unknown>) =>
    'pet' in value && 'version' in value ? storedItem(value as StoredVersion) : value;
  const [oldItem, newItem] = [before && item(before), after && item(after)];
  const key = (newItem ?? oldItem ?? {}) as { id?: unknown };
  return {
    eventID: `event-${sequence}`,
    eventName: before && after ? 'MODIFY' : after ? 'INSERT' : 'REMOVE',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-1',
    eventSourceARN: 'arn:aws:dynamodb:eu-west-1:111122223333:table/pets/stream/2026-12-07T00:00:00.000',
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(at.getTime() / 1_000),
      Keys: image({ id: key.id }),
      ...(newItem ? { NewImage: image(newItem) } : {}),
      ...(oldItem ? { OldImage: image(oldItem) } : {}),
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

export const pet = (id: number, changes: Partial<Pet> = {}): Pet => ({
  id,
  name: `pet-${id}`,
  categoryId: 1,
  status: 'available',
  ...changes,
});
