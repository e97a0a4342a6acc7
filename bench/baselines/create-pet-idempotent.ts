import { createHash, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import type { Pet } from '#shared/domain/pet';
import { baselineIds } from './id-block';

const DAY_SECONDS = 86_400;

/**
 * Baseline of createPet with an Idempotency-Key: the writes the service makes, with the same
 * client and nothing else. The id first (from a block leased as the service leases it), the
 * conditional PutItem of the in-progress record holding that id, the conditional PutItem of the
 * pet, then the UpdateItem that completes the record with the pet.
 */
export const baselineCreatePetIdempotent = (tables: {
  client: DynamoDBDocumentClient;
  petsTable: string;
  countersTable: string;
  idempotencyTable: string;
}) => {
  const nextId = baselineIds(tables.client, tables.countersTable);
  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const key = event.headers['Idempotency-Key'] ?? event.headers['idempotency-key'];
    const principal = event.requestContext.authorizer?.principalId;
    const body = JSON.parse(event.body ?? '{}') as { name: string; categoryId: number; status?: string };
    const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');
    const id = `createPet#v2#${hash([principal, key])}`;
    const now = Date.now();
    const pet = {
      id: await nextId(),
      name: body.name,
      categoryId: body.categoryId,
      status: (body.status ?? 'available') as Pet['status'],
    };
    await tables.client.send(
      new PutCommand({
        TableName: tables.idempotencyTable,
        Item: {
          id,
          status: 'IN_PROGRESS',
          fingerprint: hash([body.name, body.categoryId, body.status ?? null]),
          petId: pet.id,
          lockToken: randomUUID(),
          lockUntil: now + 3_000,
          expiration: Math.floor(now / 1000) + DAY_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(#id) OR #expiration < :now',
        ExpressionAttributeNames: { '#id': 'id', '#expiration': 'expiration' },
        ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    await tables.client.send(
      new PutCommand({
        TableName: tables.petsTable,
        Item: petItem(pet),
        ConditionExpression: 'attribute_not_exists(id)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.idempotencyTable,
        Key: { id },
        UpdateExpression: 'SET #status = :completed, pet = :pet REMOVE lockToken, lockUntil',
        ConditionExpression: 'petId = :petId',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':completed': 'COMPLETED', ':pet': pet, ':petId': pet.id },
      }),
    );
    return {
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', Location: `/v1/pets/${pet.id}` },
      body: JSON.stringify(pet),
    };
  };
};
