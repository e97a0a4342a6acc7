import { BASE_PATH } from '#shared/http/paths';
import type { Deprecation } from '#shared/operations/operation';

/** A deprecated operation's headers: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and its successor. */
export const deprecationHeaders = (deprecation: Deprecation) =>
  ({
    Deprecation: `@${Math.floor(deprecation.deprecatedAt.getTime() / 1000)}`,
    Sunset: deprecation.sunsetAt.toUTCString(),
    Link: `<${BASE_PATH}${deprecation.successor}>; rel="successor-version"`,
  }) as const;
