import type { ListPosition, PetStatus } from '#shared/domain/pet';
import { encodeCursor } from '#shared/http/cursor';
import { BASE_PATH } from '#shared/http/paths';

/** `Link: <…>; rel="next"` (RFC 8288): the same listing plus its cursor, relative to the host. */
export const nextPageLink = (
  path: string,
  listing: { readonly limit: number; readonly status?: PetStatus | undefined },
  next: readonly ListPosition[],
): string => {
  const query = new URLSearchParams({
    ...(listing.status ? { status: listing.status } : {}),
    limit: String(listing.limit),
    cursor: encodeCursor({ ...(listing.status ? { status: listing.status } : {}), positions: next }),
  });
  return `<${BASE_PATH}${path}?${query}>; rel="next"`;
};
