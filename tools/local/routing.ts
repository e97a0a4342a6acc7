import type { IncomingMessage } from 'node:http';
import { CONTRACTS } from '#functions/operations';
import type { Deadline } from '#shared/deadline';
import { singleOrigin } from '#shared/http/cors';
import { type AnswerContext, mockAccepts } from '#shared/http/gateway-behaviour';
import { BASE_PATH } from '#shared/http/paths';
import type { Operation } from '#shared/operations/operation';
import { allowedMethodsIn, resourcePathsOf } from '#shared/operations/routes';
import { headerPairs, valuesOf } from '#tools/local/http-io';

export type RouteMatch =
  | {
      readonly kind: 'operation';
      readonly operation: Operation;
      /** Path below the stage, e.g. `/pets/7`. */
      readonly path: string;
      readonly pathParameters: Readonly<Record<string, string>> | null;
    }
  /** `OPTIONS` on a known resource: the CORS preflight mock answers it, without a key. */
  | { readonly kind: 'preflight'; readonly path: string; readonly allow: readonly string[] }
  /** A known resource, another method: the `ANY` mock method (behind the authorizer) answers 405. */
  | { readonly kind: 'method-not-allowed'; readonly path: string; readonly allow: readonly string[] }
  /** No such resource: API Gateway answers 404 before it calls the authorizer. */
  | { readonly kind: 'no-resource' };

export interface RequestTarget {
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
}

/**
 * The path and query of a request target as sent (API Gateway matches that path: docs/aws-ledger.md).
 * `new URL()` would resolve dot segments (`%2e` too) and `\`: `/v1/pets/5/%2e%2e/6` would act on pet 6.
 */
export const requestTarget = (target: string): RequestTarget => {
  // An absolute-form target (`http://host/path`) names its path after the authority.
  const originForm = target.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '') || '/';
  const query = originForm.indexOf('?');
  return query === -1
    ? { pathname: originForm, searchParams: new URLSearchParams() }
    : {
        pathname: originForm.slice(0, query),
        searchParams: new URLSearchParams(originForm.slice(query + 1)),
      };
};

export const inStage = (path: string): boolean => path === BASE_PATH || path.startsWith(`${BASE_PATH}/`);

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

const matchResource = (operations: readonly Operation[], path: string) => {
  // Empty segments are kept, so `/pets//1` matches nothing, as in API Gateway.
  const segments = path.split('/');
  for (const resource of resourcePathsOf(operations)) {
    const template = resource.split('/');
    if (template.length !== segments.length) continue;
    const parameters: Record<string, string> = Object.create(null);
    const matches = template.every((part, index) => {
      const segment = segments[index] ?? '';
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      if (name) parameters[name] = decode(segment);
      return name !== undefined || part === segment;
    });
    if (matches) return { resource, pathParameters: Object.keys(parameters).length > 0 ? parameters : null };
  }
  return undefined;
};

/** The route of a request (`/v1/pets/7`), matched segment by segment as API Gateway matches; a trailing `/` is ignored. */
export const route = (
  method: string,
  urlPath: string,
  operations: readonly Operation[] = CONTRACTS,
): RouteMatch => {
  if (!inStage(urlPath)) return { kind: 'no-resource' };
  const path = urlPath.slice(BASE_PATH.length).replace(/(.)\/$/, '$1') || '/';
  const resource = matchResource(operations, path);
  if (!resource) return { kind: 'no-resource' };
  const operation = operations.find(
    (candidate) => candidate.path === resource.resource && candidate.method === method,
  );
  if (!operation) {
    const allow = allowedMethodsIn(operations, resource.resource);
    return method === 'OPTIONS'
      ? { kind: 'preflight', path, allow }
      : { kind: 'method-not-allowed', path, allow };
  }
  return { kind: 'operation', operation, path, pathParameters: resource.pathParameters };
};

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
