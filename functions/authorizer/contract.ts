/**
 * Not an operation of the API but the function API Gateway calls before each of them (a TOKEN
 * authorizer): what the stack needs to know of it beyond its root.
 */
export const authorizer = {
  name: 'authorizer',
  // Stryker disable next-line StringLiteral: the function's description in the Lambda console, read by the stack only
  description: 'TOKEN authorizer: Authorization: Bearer <API key>',
  /** Where API Gateway finds the token. */
  identitySource: 'Authorization',
} as const;
