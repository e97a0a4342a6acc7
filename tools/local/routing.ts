import { CONTRACTS } from '#functions/operations';
import { BASE_PATH } from '#shared/http/paths';
import type { Operation } from '#shared/operations/operation';
import { allowedMethodsIn, resourcePathsOf } from '#shared/operations/routes';

/**
 * Which operation a request is for, matched as API Gateway matches it: segment by segment
 * against the resource paths of the operations' descriptors, below the base path.
 */

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

/**
 * Segments of a path, the empty one before its leading `/` included (every path has it); empty
 * ones are kept, so `/pets//1` matches nothing, as in API Gateway.
 */
const segmentsOf = (path: string): string[] => path.split('/');

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The resource path a stage path falls under, and its parameters. */
const matchResource = (operations: readonly Operation[], path: string) => {
  const segments = segmentsOf(path);
  for (const resource of resourcePathsOf(operations)) {
    const template = segmentsOf(resource);
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

/**
 * The route of a request by method and URL path (`/v1/pets/7`), among `OPERATIONS` or the
 * operations given (a test's); a trailing `/` is ignored.
 */
export const route = (
  method: string,
  urlPath: string,
  operations: readonly Operation[] = CONTRACTS,
): RouteMatch => {
  if (urlPath !== BASE_PATH && !urlPath.startsWith(`${BASE_PATH}/`)) return { kind: 'no-resource' };
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
