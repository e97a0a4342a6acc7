import { BASE_PATH } from '#shared/http/paths';

/** When `GET /pets/{petId}` was deprecated (interface 1.0.0) and when it goes away. */
export const GET_PET_DEPRECATED_AT = new Date('2026-11-21T00:00:00Z');
export const GET_PET_SUNSET_AT = new Date('2030-12-05T00:00:00Z');

/**
 * Sent with every response of the deprecated operation: `Deprecation` (RFC 9745, a structured
 * date `@<epoch seconds>`), `Sunset` (RFC 8594, an HTTP date) and a `Link` to the replacement.
 */
export const GET_PET_DEPRECATION_HEADERS: Readonly<Record<string, string>> = {
  Deprecation: `@${GET_PET_DEPRECATED_AT.getTime() / 1000}`,
  Sunset: GET_PET_SUNSET_AT.toUTCString(),
  Link: `<${BASE_PATH}/pets>; rel="successor-version"`,
};
