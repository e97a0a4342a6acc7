import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';

/**
 * The Lambda timeouts of the timeout ladder (infra/constructs/api-function.ts says why these):
 * every operation's function, and the authorizer. The stack sets them; the local gateway gives
 * the handlers the same deadlines.
 */
export const HANDLER_TIMEOUT_SECONDS = 15;
export const AUTHORIZER_TIMEOUT_SECONDS = 6;

/** A Lambda proxy integration handler (REST API, payload 1.0): what each operation's function is. */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A TOKEN authorizer handler: what the authorizer function is. */
export type TokenAuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;
