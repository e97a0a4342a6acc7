import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { readFunctionConfig, tableName } from '#shared/config';

/** middy and Powertools, after aws-samples/serverless-typescript-demo's `get-product`, less X-Ray. */
const config = readFunctionConfig(['pets']);
const client = createDocumentClient(config.dynamoDb);
const TableName = tableName(config, 'pets');
const logger = new Logger();
const metrics = new Metrics();

const getPet = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const id = Number(event.pathParameters?.petId);
  logger.info('Fetching pet', { id });
  const { Item } = await client.send(new GetCommand({ TableName, Key: { id }, ConsistentRead: true }));
  if (!Item) {
    logger.warn('No pet found', { id });
    return {
      statusCode: 404,
      headers: { 'content-type': 'application/json' },
      body: '{"message":"Not found"}',
    };
  }
  metrics.addMetric('petRetrieved', MetricUnit.Count, 1);
  return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(Item) };
};

// The demo also logs every event (`logEvent`); left out, which can only make the peer faster.
export const handler = middy(getPet)
  .use(logMetrics(metrics))
  .use(injectLambdaContext(logger, { clearState: true }));
