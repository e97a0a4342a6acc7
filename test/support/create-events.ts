import { randomUUID } from 'node:crypto';
import { proxyEvent } from '#tools/lambda/events';

/**
 * API Gateway's event for `POST /pets` with an `Idempotency-Key`, from the caller the authorizer
 * named `principalId` (idempotency keys are scoped to it), each with a request id of its own.
 */
export const idempotentCreateEvent = (key: string, body: unknown, principalId = 'key-test') =>
  proxyEvent({
    method: 'POST',
    path: '/pets',
    resource: '/pets',
    headers: [
      ['Content-Type', 'application/json'],
      ['Idempotency-Key', key],
    ],
    body: JSON.stringify(body),
    requestId: randomUUID(),
    authorizer: { principalId, keyId: principalId },
  });
