import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#tools/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/**
 * Starts one real DynamoDB Local (in memory) for the whole run of a test project, and stops it
 * afterwards. Test files isolate themselves with tables of their own (test/support/tables.ts).
 */
export default async function setup(project: TestProject) {
  const db = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', db.endpoint);
  return async () => {
    await db.stop();
  };
}
