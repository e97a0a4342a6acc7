import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { BusResult, EventBus } from '#shared/ports/event-bus';

/** 3 attempts of 2 s each at most, well within the publisher's timeout. */
const EVENTBRIDGE_MAX_ATTEMPTS = 3;
const EVENTBRIDGE_REQUEST_TIMEOUT_MS = 2_000;

/** The publisher's EventBridge client: the region's endpoint and the role's credentials, as Lambda gives them. */
export const createEventBridgeClient = (): EventBridgeClient =>
  new EventBridgeClient({
    maxAttempts: EVENTBRIDGE_MAX_ATTEMPTS,
    requestHandler: {
      requestTimeout: EVENTBRIDGE_REQUEST_TIMEOUT_MS,
      connectionTimeout: EVENTBRIDGE_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
  });

/**
 * The bus `busName` through PutEvents. A call that fails as a whole (after the SDK's own retries)
 * fails each of its entries with the error's name; a call that succeeds may still fail some
 * (`FailedEntryCount`), each marked at its index ("Sending events with PutEvents in Amazon EventBridge").
 */
export const eventBridgeBus = (client: EventBridgeClient, busName: string): EventBus => ({
  put: async (entries) => {
    let results: readonly { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[];
    try {
      const answer = await client.send(
        new PutEventsCommand({
          Entries: entries.map(({ source, detailType, detail, time }) => ({
            EventBusName: busName,
            Source: source,
            DetailType: detailType,
            Detail: detail,
            Time: time,
          })),
        }),
      );
      results = answer.Entries ?? [];
    } catch (error) {
      const errorCode = error instanceof Error ? error.name : 'Error';
      return entries.map(() => ({ errorCode, errorMessage: error instanceof Error ? error.message : '' }));
    }
    return entries.map((_, index): BusResult => {
      const result = results[index];
      if (result?.EventId && !result.ErrorCode) return { eventId: result.EventId };
      return {
        errorCode: result?.ErrorCode ?? 'NoResult',
        ...(result?.ErrorMessage ? { errorMessage: result.ErrorMessage } : {}),
      };
    });
  },
});
