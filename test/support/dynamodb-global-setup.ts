import type { TestProject } from 'vitest/node';
import type { DynamoDbLocal } from '#tools/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/** The one DynamoDB Local of a run, and how many projects still use it. */
interface SharedDynamoDb {
  readonly started: Promise<DynamoDbLocal>;
  users: number;
}

// Vitest runs each project's global setup in its own module instance, in one process: the
// instance is shared through the global object.
const SHARED = Symbol.for('pet-store.test.dynamodb-local');
const registry = globalThis as typeof globalThis & { [SHARED]?: SharedDynamoDb };

/**
 * Starts one real DynamoDB Local (in memory) for the whole run, shared by every project that
 * needs one (integration, http, browser: starting one per project cost each run seconds of CPU),
 * and stops it when the last of them ends. Test files isolate themselves with tables of their own
 * (test/support/tables.ts).
 *
 * Only the first project loads the starter, and with tsx, as `npm start` does: Vitest runs the
 * projects' global setups one after the other, each through a module runner of its own, and a
 * static import made each of the six load tools/local/ and the SDK again, 1.3 s apiece before the
 * first test file started (2 s for the first, against 0.5 s with tsx).
 */
export default async function setup(project: TestProject) {
  registry[SHARED] ??= {
    started: import('tsx/esm/api')
      .then(({ tsImport }) => tsImport('#tools/local/dynamodb-local', import.meta.url))
      .then(({ startDynamoDbLocal }: typeof import('#tools/local/dynamodb-local')) => startDynamoDbLocal()),
    users: 0,
  };
  const shared = registry[SHARED];
  shared.users += 1;
  const db = await shared.started;
  project.provide('dynamoDbEndpoint', db.endpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete registry[SHARED];
    await db.stop();
  };
}
