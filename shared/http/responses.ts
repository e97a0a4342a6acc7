import { petLocation } from '#shared/http/paths';

/** What a handler returns: a status, a body to serialise as JSON, and extra headers. */
export interface HttpResult {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export const ok = (body: unknown): HttpResult => ({ status: 200, body });

export const created = (pet: { id: number }): HttpResult => ({
  status: 201,
  body: pet,
  headers: { Location: petLocation(pet.id) },
});
