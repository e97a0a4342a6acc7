import { createPet } from '#shared/operations/create-pet';
import { getPet } from '#shared/operations/get-pet';
import { listPets } from '#shared/operations/list-pets';
import type { HttpMethod } from '#shared/operations/operation';

/** Every operation of the API, in the order the document lists them. */
export const OPERATIONS = [listPets, createPet, getPet] as const;

export type AnyOperation = (typeof OPERATIONS)[number];
export type OperationId = AnyOperation['operationId'];
export type ResourcePath = AnyOperation['path'];

/** Resource paths, each once. */
export const RESOURCE_PATHS: readonly ResourcePath[] = [
  ...new Set(OPERATIONS.map((operation) => operation.path)),
];

/** Methods a resource path answers; any other method gets 405 with this list in `Allow`. */
export const allowedMethods = (path: string): HttpMethod[] =>
  OPERATIONS.filter((operation) => operation.path === path).map((operation) => operation.method);
