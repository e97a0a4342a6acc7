import { createHash, randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { petItem } from '#shared/adapters/dynamodb/pet-items';
import { readFunctionConfig, tableName } from '#shared/config';
import type { Pet } from '#shared/domain/pet';
import { baselineIds } from './id-block';

/** createPet's baseline: the service's writes (id block, PutItem, Idempotency-Key record around it). */
const config = readFunctionConfig(['pets', 'counters', 'idempotency']);
const client = createDocumentClient(config.dynamoDb);
const pets = tableName(config, 'pets');
const records = tableName(config, 'idempotency');
const nextId = baselineIds(client, tableName(config, 'counters'));
const DAY_SECONDS = 86_400;

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url');

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const body = JSON.parse(event.body ?? '{}') as { name: string; categoryId: number; status?: string };
  const pet = {
    id: await nextId(),
    name: body.name,
    categoryId: body.categoryId,
    status: (body.status ?? 'available') as Pet['status'],
  };
  const key = event.headers['Idempotency-Key'] ?? event.headers['idempotency-key'];
  const id = `createPet#v2#${hash([event.requestContext.authorizer?.principalId, key])}`;
  if (key !== undefined) {
    const now = Date.now();
    await client.send(
      new PutCommand({
        TableName: records,
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
  }
  await client.send(
    new PutCommand({
      TableName: pets,
      Item: petItem(pet),
      ConditionExpression: 'attribute_not_exists(id)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    }),
  );
  if (key !== undefined) {
    await client.send(
      new UpdateCommand({
        TableName: records,
        Key: { id },
        UpdateExpression: 'SET #status = :completed, pet = :pet REMOVE lockToken, lockUntil',
        ConditionExpression: 'petId = :petId',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':completed': 'COMPLETED', ':pet': pet, ':petId': pet.id },
      }),
    );
  }
  return {
    statusCode: 201,
    headers: { 'Content-Type': 'application/json', Location: `/v1/pets/${pet.id}` },
    body: JSON.stringify(pet),
  };
};
