import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * `Request-Id`: the request's id, on every answer a function or a mock gives (API Gateway's own
 * gateway responses carry it in the Error body's `requestId` and in API Gateway's
 * `x-amz-apigw-id`). It is `$context.extendedRequestId`, which API Gateway generates: AWS's
 * "Access logging for REST APIs" says of `$context.requestId` "Clients can override the value in
 * the x-amzn-RequestId header", and of `$context.extendedRequestId` "An API caller can't provide
 * or override this request ID". An Error body's `requestId`, the `correlation_id` of every log
 * line the request makes a function write and the access log's `requestId` are the same value.
 */
export const REQUEST_ID_HEADER = 'Request-Id';

/** The header API Gateway sends the same id in, on every answer (docs/aws-ledger.md). */
export const API_GATEWAY_ID_HEADER = 'x-amz-apigw-id';

/** The request's id in a proxy event: `requestContext.extendedRequestId`, never the client's. */
export const requestIdOf = (event: Pick<APIGatewayProxyEvent, 'requestContext'> | undefined) =>
  event?.requestContext?.extendedRequestId;
