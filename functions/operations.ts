import { createPetRoot } from '#functions/create-pet/root';
import { deletePetRoot } from '#functions/delete-pet/root';
import { getPetRoot } from '#functions/get-pet/root';
import { listPetsRoot } from '#functions/list-pets/root';
import { updatePetRoot } from '#functions/update-pet/root';
import type { FunctionConfig } from '#shared/config';
import type { ProxyHandler } from '#shared/lambda';
import type { Operation } from '#shared/operations/operation';
import { allowedMethodsIn, resourcePathsOf } from '#shared/operations/routes';

/**
 * Every operation of the API, in the order the document lists them: the one list. Each entry is
 * an operation's composition root (functions/<name>/root.ts), which carries its contract. The
 * stack's methods, functions and grants, the local gateway's routes and handlers, the OpenAPI
 * document, the bench's targets and the tests that walk the operations all derive from it.
 * (Each Lambda entry imports only its own root, so a bundle never carries another function.)
 */
export const OPERATIONS = [listPetsRoot, createPetRoot, getPetRoot, updatePetRoot, deletePetRoot] as const;

export type AnyOperationRoot = (typeof OPERATIONS)[number];
export type AnyOperation = AnyOperationRoot['operation'];
export type OperationId = AnyOperation['operationId'];
export type ResourcePath = AnyOperation['path'];

/** The operations' contracts, in the same order. */
export const CONTRACTS: readonly Operation[] = OPERATIONS.map((root) => root.operation);

/** Resource paths, each once. */
export const RESOURCE_PATHS = resourcePathsOf(CONTRACTS) as readonly ResourcePath[];

/** Methods a resource path answers; any other method gets 405 with this list in `Allow`. */
export const allowedMethods = (path: string) => allowedMethodsIn(CONTRACTS, path);

/** Every operation's handler, each built by its own root from one configuration, by operation id. */
export const buildOperationHandlers = (
  config: FunctionConfig,
  operations: readonly {
    readonly name: string;
    readonly build: (config: FunctionConfig) => ProxyHandler;
  }[] = OPERATIONS,
): Readonly<Record<string, ProxyHandler>> =>
  Object.fromEntries(operations.map((root) => [root.name, root.build(config)]));
