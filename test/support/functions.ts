import { authorizer } from '#functions/authorizer';
import { OPERATIONS } from '#functions/operations';
import { petEventsPublisher } from '#functions/publish-pet-events';
import { describeOperation, pascal } from '#infra/pet-store-stack';

/** A function of the stack as the template tests find it. */
export interface StackFunction {
  /** As its alarms, deployment group and log group output carry it (`ListPets`, `Authorizer`). */
  readonly name: string;
  /** As the stack describes it (`GET /pets (listPets)`): how a test finds it in a template. */
  readonly description: string;
}

/** Every operation's function, from the list. */
export const OPERATION_FUNCTIONS: readonly StackFunction[] = OPERATIONS.map(({ operation }) => ({
  name: pascal(operation.operationId),
  description: describeOperation(operation),
}));

export const AUTHORIZER_FUNCTION: StackFunction = {
  name: pascal(authorizer.name),
  description: authorizer.description,
};

/** What the pets table's stream invokes: the events publisher. */
export const PUBLISHER_FUNCTION: StackFunction = {
  name: pascal(petEventsPublisher.name),
  description: petEventsPublisher.description,
};

/** The functions API Gateway invokes: the operations' and the authorizer. */
export const API_FUNCTIONS: readonly StackFunction[] = [...OPERATION_FUNCTIONS, AUTHORIZER_FUNCTION];

/** Every function of the stack: API Gateway's, and the events publisher. */
export const STACK_FUNCTIONS: readonly StackFunction[] = [...API_FUNCTIONS, PUBLISHER_FUNCTION];
