import { createPetFunction } from '#functions/create-pet';
import { deletePetFunction } from '#functions/delete-pet';
import { getPetFunction } from '#functions/get-pet';
import { listPetsFunction } from '#functions/list-pets';
import { updatePetFunction } from '#functions/update-pet';
import type { FunctionConfig } from '#shared/config';
import type { ProxyHandler } from '#shared/lambda';
import type { Operation } from '#shared/operations/operation';
import { allowedMethodsIn, resourcePathsOf, scopeResourcesOf } from '#shared/operations/routes';

/**
 * Every operation of the API, in the order the document lists them: the one list. Each entry is
 * an operation's function (functions/<kebab-case name>.ts): its contract, the tables it uses and
 * its handler. The stack's methods, functions, grants and Lambda entries, the local gateway's
 * routes and handlers, the OpenAPI document, the bench's targets, the tests that walk the
 * operations and the documents' tables all derive from it. (Each generated Lambda entry imports
 * only its own module, so a bundle never carries another function.)
 */
export const OPERATIONS = [
  listPetsFunction,
  createPetFunction,
  getPetFunction,
  updatePetFunction,
  deletePetFunction,
] as const;

export type AnyOperation = (typeof OPERATIONS)[number]['operation'];
export type OperationId = AnyOperation['operationId'];
export type ResourcePath = AnyOperation['path'];

/** The operations' contracts, in the same order. */
export const CONTRACTS: readonly Operation[] = OPERATIONS.map((fn) => fn.operation);

/** Resource paths, each once. */
export const RESOURCE_PATHS = resourcePathsOf(CONTRACTS) as readonly ResourcePath[];

/** Each scope's methods, the authorizer's configuration (PETSTORE_SCOPES): what it allows a key of each scope. */
export const SCOPE_RESOURCES = scopeResourcesOf(CONTRACTS);

/** Methods a resource path answers; any other method gets 405 with this list in `Allow`. */
export const allowedMethods = (path: string) => allowedMethodsIn(CONTRACTS, path);

/** Every operation's handler, each built by its own function from one configuration, by operation id. */
export const buildOperationHandlers = (config: FunctionConfig): Readonly<Record<string, ProxyHandler>> =>
  Object.fromEntries(OPERATIONS.map((fn) => [fn.name, fn.build(config)]));
