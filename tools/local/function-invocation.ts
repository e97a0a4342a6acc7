import type { APIGatewayProxyEvent } from 'aws-lambda';
import { lambdaContext } from '#tools/lambda/context';
import { inInvocationStore } from '#tools/lambda/invoke-store';
import { TIMED_OUT, withinTimeout } from '#tools/lambda/timeout';

import type { GatewaySetup } from '#tools/local/gateway';
import { GatewayRefusal } from '#tools/local/gateway-refusal';

/**
 * An operation's function as Lambda runs it for API Gateway: its result, or INTEGRATION_FAILURE when it
 * throws or times out (both a function error: docs/aws-ledger.md, "Header and body limits, timeouts").
 */
export const invokeFunction = async (
  setup: GatewaySetup,
  operationId: string,
  event: APIGatewayProxyEvent,
): Promise<unknown> => {
  const handler = setup.handlers[operationId];
  const timeoutMs = setup.functionTimeoutMs;
  let result: unknown;
  try {
    if (!handler) throw new Error(`No handler for ${operationId}`);
    const invocation = inInvocationStore(handler)(event, lambdaContext(operationId, { timeoutMs }));
    result = await withinTimeout(invocation, timeoutMs);
  } catch {
    throw GatewayRefusal.of('INTEGRATION_FAILURE');
  }
  if (result === TIMED_OUT) {
    const requestId = event.requestContext.extendedRequestId ?? '-';
    setup.log?.(
      `${operationId}: Task timed out after ${(timeoutMs / 1_000).toFixed(2)} seconds ${requestId}`,
    );
    throw GatewayRefusal.of('INTEGRATION_FAILURE');
  }
  return result;
};
