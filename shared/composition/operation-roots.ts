import { createPetRoot } from '#shared/composition/create-pet';
import { getPetRoot } from '#shared/composition/get-pet';
import { listPetsRoot } from '#shared/composition/list-pets';
import type { FunctionRoot } from '#shared/composition/root';
import type { FunctionConfig } from '#shared/config';
import type { ProxyHandler } from '#shared/lambda';
import type { OperationId } from '#shared/operations/routes';

/**
 * The root of every operation's function, by operation id: what the local server builds. A new
 * operation without a root here is a type error. (Each Lambda entry in functions/ imports only
 * its own root, so a bundle never carries another function's code.)
 */
export const OPERATION_ROOTS: Readonly<Record<OperationId, FunctionRoot<ProxyHandler>>> = {
  listPets: listPetsRoot,
  createPet: createPetRoot,
  getPet: getPetRoot,
};

/** Every operation's handler, each built by its own root from one configuration. */
export const buildOperationHandlers = (config: FunctionConfig): Readonly<Record<OperationId, ProxyHandler>> =>
  Object.fromEntries(
    Object.entries(OPERATION_ROOTS).map(([operationId, root]) => [operationId, root.build(config)]),
  ) as Record<OperationId, ProxyHandler>;
