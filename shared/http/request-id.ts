import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * `Request-Id`: `$context.extendedRequestId`, which unlike `$context.requestId` a caller cannot
 * override (AWS's "Access logging for REST APIs").
 */
export const REQUEST_ID_HEADER = 'Request-Id';

/** The header API Gateway sends the same id in, on every answer (docs/aws-ledger.md). */
export const API_GATEWAY_ID_HEADER = 'x-amz-apigw-id';

/** The request's id in a proxy event: `requestContext.extendedRequestId`, never the client's. */
export const requestIdOf = (event: Pick<APIGatewayProxyEvent, 'requestContext'> | undefined) =>
  event?.requestContext?.extendedRequestId;
