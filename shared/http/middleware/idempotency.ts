import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyInconsistentStateError,
  IdempotencyItemNotFoundError,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { ResponseHook } from '@aws-lambda-powertools/idempotency/types';
import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from '#shared/domain/errors';
import { IDEMPOTENT_REPLAYED_HEADER } from '#shared/http/idempotency-headers';
import { type Logger, loggerOf } from '#shared/observability/logger';
import type { IdempotencyRule } from '#shared/operations/operation';

export interface IdempotentRequestsOptions {
  /** Prefix of every record's key: the operation, so that records outlive a renamed function. */
  readonly operationId: string;
  readonly rule: IdempotencyRule;
  readonly store: BasePersistenceLayer;
  readonly logger: Logger;
}

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>;

type StoredAnswer = Parameters<ResponseHook>[0];

/** A stored answer, as Powertools replays it: the handler's result, plain JSON. */
const isJsonObject = (value: StoredAnswer): value is Extract<StoredAnswer, Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first answer, replayed: the same status, body and headers, plus `Idempotent-Replayed: true`. */
const markedReplayed: ResponseHook = (answer) => {
  if (!isJsonObject(answer)) return answer;
  const headers = isJsonObject(answer.headers) ? answer.headers : {};
  return { ...answer, headers: { ...headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' } };
};

/**
 * What Powertools' errors mean here, in the domain's terms; nothing of Powertools goes further.
 * A store failure was already translated by the adapter (StoreUnavailableError for a throttled or
 * timed-out call), and Powertools wraps it: the cause is what counts.
 */
export const translateIdempotencyError = (error: unknown): unknown => {
  if (error instanceof IdempotencyAlreadyInProgressError)
    return new IdempotencyKeyInUseError({ cause: error });
  // The record changed while it was being read (it completed or expired meanwhile): retry.
  if (error instanceof IdempotencyInconsistentStateError || error instanceof IdempotencyItemNotFoundError) {
    return new IdempotencyKeyInUseError({ cause: error });
  }
  if (error instanceof IdempotencyValidationError) return new IdempotencyKeyReusedError({ cause: error });
  if (error instanceof IdempotencyPersistenceLayerError) return error.cause ?? error;
  return error;
};

/**
 * Makes an operation idempotent by key, with Powertools' middy middleware and its persistence
 * layer. Runs after validation, so only valid requests are ever recorded, and:
 *
 * - the key is the API key's id (the authorizer's principal) and the header, hashed: one client
 *   cannot see or block another's keys; without the header the request is processed as usual;
 * - the first answer is kept for `retentionSeconds` and replayed, plus `Idempotent-Replayed: true`,
 *   to a request with the same key and the same body (compared after parsing, so key order and
 *   spacing do not matter); another body is IdempotencyKeyReusedError;
 * - while the first request is in flight (until its Lambda deadline at the latest), a repeat is
 *   IdempotencyKeyInUseError;
 * - a request that fails (any error, which then becomes a 4xx or 5xx) deletes its record, so its
 *   failure is never replayed and a retry is processed anew.
 *
 * Powertools 2.35.0's `onError` deletes the record even when the error came from its own `before`,
 * that is when it refused a repeat: the lock of the request still in flight, or the completed
 * record of a key reused with another body, would be deleted, and the next retry would create a
 * second pet (aws-powertools/powertools-lambda-typescript#5675, fixed after 2.35.0). So `onError`
 * is passed on only for a request that acquired its record.
 */
export const idempotentRequests = (
  options: IdempotentRequestsOptions,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => {
  const key = `input.headers."${options.rule.header}"`;
  const powertools = makeHandlerIdempotent({
    persistenceStore: options.store,
    keyPrefix: options.operationId,
    config: new IdempotencyConfig({
      // Null without the header, and then Powertools leaves the request alone.
      eventKeyJmesPath: `${key} && [requestContext.authorizer.principalId, ${key}]`,
      payloadValidationJmesPath: 'input.body',
      expiresAfterSeconds: options.rule.retentionSeconds,
      hashFunction: 'sha256',
      responseHook: markedReplayed,
    }),
  });
  /** Requests that hold their record: theirs to complete, or to delete when they fail. */
  const holders = new WeakSet<Request>();

  return {
    before: async (request) => {
      let replay: unknown;
      try {
        replay = await powertools.before?.(request);
      } catch (error) {
        throw translateIdempotencyError(error);
      }
      if (replay !== undefined) return replay as APIGatewayProxyResult;
      holders.add(request);
    },
    after: async (request) => {
      holders.delete(request);
      try {
        await powertools.after?.(request);
      } catch (error) {
        // The pet exists and the client gets its 201. Failing now would invite a retry that,
        // once the in-progress record expires, creates the pet twice.
        loggerOf(request, options.logger).error('Idempotency record not completed', {
          error: translateIdempotencyError(error),
        });
      }
    },
    onError: async (request) => {
      if (!holders.delete(request)) return;
      try {
        await powertools.onError?.(request);
      } catch (error) {
        // The answer is an error either way; the record expires with the Lambda deadline.
        loggerOf(request, options.logger).error('Idempotency record not deleted', {
          error: translateIdempotencyError(error),
        });
      }
    },
  };
};
