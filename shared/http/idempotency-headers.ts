import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { IdempotencyKey } from '#shared/domain/idempotency';
import { authorizerValue } from '#shared/http/caller';

/** The request header that makes a create idempotent (IETF draft "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Sent, as `true`, on an answer replayed for a repeated Idempotency-Key instead of processed anew. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The request's idempotency key, scoped to its caller (the authorizer's `principalId`). */
export const idempotencyKeyOf = (
  event: APIGatewayProxyEvent,
  key: string | undefined,
): IdempotencyKey | undefined => {
  if (key === undefined) return undefined;
  const caller = authorizerValue(event, 'principalId');
  if (caller === undefined)
    throw new Error('A request with an Idempotency-Key reached the function without a principal');
  return { caller, key };
};
