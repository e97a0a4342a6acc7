import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * `Request-Id`: `$context.extendedRequestId`, on every answer of a function or a mock (gateway
 * responses carry it in the body and `x-amz-apigw-id`), in the logs and the access log. AWS's
 * "Access logging for REST APIs" says of `$context.requestId` "Clients can override the value in
 * the x-amzn-RequestId header", and of `$context.extendedRequestId` "An API caller can't provide
 * or override this request ID".
 */
export const REQUEST_ID_HEADER = 'Request-Id';

/** The header API Gateway sends the same id in, on every answer (docs/aws-ledger.md). */
export const API_GATEWAY_ID_HEADER = 'x-amz-apigw-id';

/** The request's id in a proxy event: `requestContext.extendedRequestId`, never the client's. */
export const requestIdOf = (event: Pick<APIGatewayProxyEvent, 'requestContext'> | undefined) =>
  event?.requestContext?.extendedRequestId;
