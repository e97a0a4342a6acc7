import { BASE_PATH } from '#shared/http/paths';
import type { Deprecation } from '#shared/operations/operation';

/**
 * The headers every answer of a deprecated operation carries: `Deprecation` (RFC 9745, a
 * structured date `@<epoch seconds>`), `Sunset` (RFC 8594, an HTTP date) and a `Link` to the
 * replacement.
 */
export const deprecationHeaders = (deprecation: Deprecation) =>
  ({
    Deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
    Sunset: deprecation.sunsetAt.toUTCString(),
    Link: `<${BASE_PATH}${deprecation.successor}>; rel="successor-version"`,
  }) as const;
