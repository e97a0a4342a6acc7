import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
} from 'aws-lambda';

/** The Lambda timeouts of the operations' functions and the authorizer (infra/constructs/api-function.ts says why). */
export const HANDLER_TIMEOUT_SECONDS = 15;
export const AUTHORIZER_TIMEOUT_SECONDS = 6;

/** A Lambda proxy integration handler (REST API, payload 1.0). */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export type TokenAuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

/** A function of a DynamoDB stream's event source mapping that reports batch item failures. */
export type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;
