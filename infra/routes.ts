/**
 * The route table: the one list of operations, read by the CDK stack (API Gateway resources and
 * functions) and by the local server (infra/local), so the two cannot drift apart.
 */

export { BASE_PATH, STAGE_NAME } from '#shared/http/paths';

export type HttpMethod = 'GET' | 'POST';

export interface Route {
  /** OpenAPI operation id, also the logical name of the function. */
  readonly operationId: 'listPets' | 'createPet' | 'getPet';
  readonly method: HttpMethod;
  /** API Gateway resource path, relative to the stage. */
  readonly path: '/pets' | '/pets/{petId}';
  /** Lambda entry file, relative to the project root. */
  readonly entry: string;
  /** What the function does with the pets table: grants follow from it. */
  readonly access: 'read' | 'write';
  readonly deprecated?: boolean;
}

export const ROUTES: readonly Route[] = [
  { operationId: 'listPets', method: 'GET', path: '/pets', entry: 'functions/list-pets.ts', access: 'read' },
  {
    operationId: 'createPet',
    method: 'POST',
    path: '/pets',
    entry: 'functions/create-pet.ts',
    access: 'write',
  },
  {
    operationId: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    entry: 'functions/get-pet.ts',
    access: 'read',
    deprecated: true,
  },
];

export const AUTHORIZER_ENTRY = 'functions/authorizer.ts';

/** Methods each resource path answers; any other method gets 405 with this list in `Allow`. */
export const allowedMethods = (path: Route['path']): HttpMethod[] =>
  ROUTES.filter((route) => route.path === path).map((route) => route.method);

/** Resource paths in the table, each once. */
export const RESOURCE_PATHS: readonly Route['path'][] = [...new Set(ROUTES.map((route) => route.path))];
