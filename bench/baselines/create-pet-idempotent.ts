import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { baselineCreatePet } from './create-pet';

const DAY_SECONDS = 86_400;

/**
 * Baseline of createPet with an Idempotency-Key: the writes the service makes, with the same
 * client and nothing else. First the conditional PutItem of an in-progress record (Powertools'
 * condition: absent, expired, or in progress past its deadline), then the create's two writes
 * (baselineCreatePet), then the UpdateItem that completes the record with the answer.
 */
export const baselineCreatePetIdempotent = (tables: {
  client: DynamoDBDocumentClient;
  petsTable: string;
  countersTable: string;
  idempotencyTable: string;
}) => {
  const create = baselineCreatePet(tables);
  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const key = event.headers['Idempotency-Key'] ?? event.headers['idempotency-key'];
    const principal = event.requestContext.authorizer?.principalId;
    const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64');
    const id = `createPet#${hash([principal, key])}`;
    const validation = hash(JSON.parse(event.body ?? '{}'));
    const now = Date.now();
    await tables.client.send(
      new PutCommand({
        TableName: tables.idempotencyTable,
        Item: {
          id,
          expiration: Math.round(now / 1000 + DAY_SECONDS),
          status: 'INPROGRESS',
          in_progress_expiration: now + context.getRemainingTimeInMillis(),
          validation,
        },
        ConditionExpression:
          'attribute_not_exists(#id) OR #expiry < :now OR (#status = :inprogress AND attribute_exists(#in_progress_expiry) AND #in_progress_expiry < :now_in_millis)',
        ExpressionAttributeNames: {
          '#id': 'id',
          '#expiry': 'expiration',
          '#status': 'status',
          '#in_progress_expiry': 'in_progress_expiration',
        },
        ExpressionAttributeValues: { ':now': now / 1000, ':now_in_millis': now, ':inprogress': 'INPROGRESS' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const response = await create(event);
    await tables.client.send(
      new UpdateCommand({
        TableName: tables.idempotencyTable,
        Key: { id },
        UpdateExpression:
          'SET #expiry = :expiry, #status = :status, #data = :data, #validation = :validation',
        ExpressionAttributeNames: {
          '#expiry': 'expiration',
          '#status': 'status',
          '#data': 'data',
          '#validation': 'validation',
        },
        ExpressionAttributeValues: {
          ':expiry': Math.round(Date.now() / 1000 + DAY_SECONDS),
          ':status': 'COMPLETED',
          ':data': response,
          ':validation': validation,
        },
      }),
    );
    return response;
  };
};
