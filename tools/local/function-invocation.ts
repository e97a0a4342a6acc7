import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '#tools/lambda/context';
import { inInvocationStore } from '#tools/lambda/invoke-store';
import { GatewayRefusal } from '#tools/local/gateway-refusal';
import type { GatewaySetup } from '#tools/local/gateway-setup';

/**
 * One invocation of an operation's function, as Lambda runs it for API Gateway: its result, or
 * INTEGRATION_FAILURE for a function that throws (API Gateway never passes on a stack trace).
 */
export const invokeFunction = async (
  setup: GatewaySetup,
  operationId: string,
  event: APIGatewayProxyEvent,
): Promise<unknown> => {
  const handler = setup.handlers[operationId];
  try {
    if (!handler) throw new Error(`No handler for ${operationId}`);
    return await inInvocationStore(handler)(
      event,
      lambdaContext(operationId, { timeoutMs: setup.functionTimeoutMs }),
    );
  } catch {
    // A function that throws is an integration failure to API Gateway, never a stack trace.
    throw GatewayRefusal.of('INTEGRATION_FAILURE');
  }
};
