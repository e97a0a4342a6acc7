import { DATA_ACCESS } from '#shared/adapters/dynamodb/access';

/**
 * Not an operation of the API but the function API Gateway calls before each of them: its
 * description, for the stack (function, grants, variables) as the operations have theirs.
 */
export const authorizerFunction = {
  name: 'authorizer',
  // Stryker disable next-line StringLiteral: the function's description in the Lambda console, read by the stack only
  description: 'TOKEN authorizer: Authorization: Bearer <API key>',
  /** Where API Gateway finds the token. */
  identitySource: 'Authorization',
  data: DATA_ACCESS.apiKeys.findByHash,
} as const;
