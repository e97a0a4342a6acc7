import type { IncomingMessage } from 'node:http';
import type { Deadline } from '#shared/deadline';
import { singleOrigin } from '#shared/http/cors';
import { type AnswerContext, mockAccepts } from '#shared/http/gateway-behaviour';
import { headerPairs, valuesOf } from '#tools/local/http-io';
import type { RequestTarget, RouteMatch } from '#tools/local/routing';

/** A request's id, and once a key is accepted the authorizer's context. */
export interface RequestContext {
  readonly requestId: string;
  authorizer?: AnswerContext['authorizer'];
}

/** A request routed to a method behind the authorizer: a function's, or the 405 mock's. */
export interface RoutedRequest {
  readonly request: IncomingMessage;
  readonly context: RequestContext;
  readonly method: string;
  readonly url: RequestTarget;
  readonly headers: [string, string][];
  readonly body: Buffer;
  /** `requestTimeEpoch`: when its body was in. */
  readonly received: Date;
  readonly deadline: Deadline;
  readonly match: Extract<RouteMatch, { kind: 'operation' | 'method-not-allowed' }>;
}

/** The request's one `Origin`, for CORS; none when it sends none, or several. */
export const originOf = (request: IncomingMessage): string | undefined =>
  singleOrigin(valuesOf(headerPairs(request), 'origin'));

/** A mock (the preflight, the 405) has request templates for some content types only. */
export const mockRefuses = (headers: readonly (readonly [string, string])[]): boolean =>
  !mockAccepts(valuesOf(headers, 'content-type').at(-1));
