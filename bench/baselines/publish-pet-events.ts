import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { readFunctionConfig, requireEventBus } from '#shared/config';

/**
 * The publisher's baseline, a raw Lambda entry: each record's images unmarshalled into an event,
 * one PutEvents for the batch with the same client, its failed entries reported; nothing else.
 */
const EventBusName = requireEventBus(readFunctionConfig([]));
const client = new EventBridgeClient({});
const DETAIL_TYPE = { INSERT: 'PetCreated', MODIFY: 'PetChanged', REMOVE: 'PetRemoved' } as const;

type Image = Parameters<typeof unmarshall>[0];

export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const Entries = event.Records.map(({ eventName = 'INSERT', dynamodb = {} }) => {
    const pet = dynamodb.NewImage && unmarshall(dynamodb.NewImage as Image);
    const previous = dynamodb.OldImage && unmarshall(dynamodb.OldImage as Image);
    const version = pet ? Number(pet.version) : Number(previous?.version) + 1;
    const id = Number(pet?.id ?? previous?.id);
    const time = new Date((dynamodb.ApproximateCreationDateTime ?? 0) * 1_000);
    const detail = {
      eventId: `pet-${id}-v${version}`,
      petId: id,
      version,
      occurredAt: time.toISOString(),
      pet,
      previous,
    };
    return {
      EventBusName,
      Source: 'pet-store.pets',
      DetailType: DETAIL_TYPE[eventName],
      Detail: JSON.stringify(detail),
      Time: time,
    };
  });
  const { Entries: results = [] } = await client.send(new PutEventsCommand({ Entries }));
  return {
    batchItemFailures: event.Records.filter((_, index) => results[index]?.ErrorCode).map((record) => ({
      itemIdentifier: record.dynamodb?.SequenceNumber ?? '',
    })),
  };
};
