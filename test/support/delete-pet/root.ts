import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { TableAccess } from '#shared/adapters/dynamodb/access';
import { createDocumentClient } from '#shared/adapters/dynamodb/client';
import { defineOperationRoot } from '#shared/composition/root';
import { tableName } from '#shared/config';
import { PetNotFoundError } from '#shared/domain/errors';
import { createLogger } from '#shared/observability/logger';
import { deletePet } from './contract';
import { deletePetHandler } from './handler';

/** What its one adapter call is: a conditional DeleteItem on the pets table. */
const DELETE_PET: readonly TableAccess[] = [{ table: 'pets', actions: ['dynamodb:DeleteItem'] }];

/**
 * The test-only operation's root. A real operation would call a PetService method and a
 * repository method of the adapter; this one, living in the tests, makes its one call here.
 */
export const deletePetRoot = defineOperationRoot(deletePet, {
  data: DELETE_PET,
  entry: 'test/support/delete-pet/lambda.ts',
  build: (config) => {
    const client = createDocumentClient(config.dynamoDb);
    const TableName = tableName(config, 'pets');
    return deletePetHandler({
      remove: async (id) => {
        try {
          await client.send(
            new DeleteCommand({ TableName, Key: { id }, ConditionExpression: 'attribute_exists(id)' }),
          );
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) throw new PetNotFoundError(id);
          throw error;
        }
      },
      logger: createLogger(config),
      corsOrigins: config.corsOrigins,
    });
  },
});
