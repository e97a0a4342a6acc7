import { AUTHORIZER_ENTRY, ROUTES, type Route } from '#infra/routes';
import type { BenchFunction } from './lambda-events';

/** A function of the stack and the baseline it is measured against. */
export interface BenchTarget {
  readonly name: BenchFunction;
  /** Entry file of the function, relative to the project root (from the route table). */
  readonly entry: string;
  /** Entry file of its baseline: the same DynamoDB calls, same client, nothing else. */
  readonly baseline: string;
}

const routeEntry = (operationId: Route['operationId']): string => {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route ${operationId}`);
  return route.entry;
};

/** Every Lambda function of the stack, in report order. */
export const TARGETS: readonly BenchTarget[] = [
  { name: 'list-pets', entry: routeEntry('listPets'), baseline: 'bench/baselines/list-pets.ts' },
  { name: 'create-pet', entry: routeEntry('createPet'), baseline: 'bench/baselines/create-pet.ts' },
  { name: 'get-pet', entry: routeEntry('getPet'), baseline: 'bench/baselines/get-pet.ts' },
  { name: 'authorizer', entry: AUTHORIZER_ENTRY, baseline: 'bench/baselines/authorizer.ts' },
];
