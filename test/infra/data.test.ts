import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '#infra/stage-names';
import { ALL_TABLES } from '#shared/adapters/dynamodb/table-design';
import { synthStages } from '../support/pet-store-app';
import { resourcesOfType } from '../support/template-queries';

const { templates, stacks } = synthStages();

/** The status index of docs/interface.md: 16 partition keys a status, whole pets projected. */
const SHARDED_STATUS_INDEX = {
  IndexName: 'status-shard-index',
  KeySchema: [
    { AttributeName: 'statusShard', KeyType: 'HASH' },
    { AttributeName: 'id', KeyType: 'RANGE' },
  ],
  Projection: { ProjectionType: 'ALL' },
};

const tableOf = (stageName: (typeof STAGE_NAMES)[number], logicalName: string) => {
  const found = resourcesOfType(templates[stageName], 'AWS::DynamoDB::Table').find(([id]) =>
    id.startsWith(`Tables${logicalName}`),
  );
  if (!found) throw new Error(`No ${logicalName} table`);
  return found[1];
};

describe.each(STAGE_NAMES)('%s tables', (stageName) => {
  it('has the four tables of table-design.ts', () => {
    templates[stageName].resourceCountIs('AWS::DynamoDB::Table', ALL_TABLES.length);
  });

  it.each(ALL_TABLES)(
    'keys $logicalName as table-design.ts says, on demand, with AWS managed encryption',
    (design) => {
      const table = tableOf(stageName, design.logicalName);

      expect(table.Properties).toMatchObject({
        KeySchema: [{ AttributeName: design.partitionKey.name, KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
      });
      expect(table.Properties.AttributeDefinitions).toContainEqual({
        AttributeName: design.partitionKey.name,
        AttributeType: design.partitionKey.type,
      });
    },
  );

  it('leaves table names to CloudFormation, so stages never collide', () => {
    for (const [, table] of resourcesOfType(templates[stageName], 'AWS::DynamoDB::Table')) {
      expect(table.Properties).not.toHaveProperty('TableName');
    }
  });

  it('indexes pets by status shard and id, never by the bare status, projecting whole pets', () => {
    const pets = tableOf(stageName, 'Pets');

    expect(pets.Properties.GlobalSecondaryIndexes).toEqual([SHARDED_STATUS_INDEX]);
    expect(pets.Properties.AttributeDefinitions).toEqual([
      { AttributeName: 'id', AttributeType: 'N' },
      { AttributeName: 'statusShard', AttributeType: 'S' },
    ]);
  });
});

describe.each(STAGE_NAMES)('%s idempotency table', (stageName) => {
  it('keys records by id (S), on demand, and lets DynamoDB delete them once `expiration` has passed', () => {
    const table = tableOf(stageName, 'Idempotency');

    expect(table.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
    });
    expect(table.Properties).not.toHaveProperty('GlobalSecondaryIndexes');
  });

  it('is the only table with a TTL: pets, counters and keys are never deleted by time', () => {
    for (const logicalName of ['Pets', 'Counters', 'ApiKeys']) {
      expect(tableOf(stageName, logicalName).Properties).not.toHaveProperty('TimeToLiveSpecification');
    }
  });
});

describe('data protection', () => {
  it('protects every production table: deletion protection, point-in-time recovery, retained on delete', () => {
    for (const design of ALL_TABLES) {
      const table = tableOf('production', design.logicalName);
      expect(table.Properties).toMatchObject({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('keeps staging disposable: no deletion protection, no point-in-time recovery, deleted with the stack', () => {
    for (const design of ALL_TABLES) {
      const table = tableOf('staging', design.logicalName);
      expect(table.Properties).toMatchObject({
        DeletionProtectionEnabled: false,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
      });
      expect(table.DeletionPolicy).toBe('Delete');
    }
  });

  it('turns on termination protection for the production stack only', () => {
    expect(stacks.production.terminationProtection).toBe(true);
    expect(stacks.staging.terminationProtection).toBe(false);
  });

  it('retains production logs and the alarm key, and lets staging take them along', () => {
    for (const type of ['AWS::Logs::LogGroup', 'AWS::KMS::Key']) {
      for (const [, resource] of resourcesOfType(templates.production, type)) {
        expect(resource.DeletionPolicy).toBe('Retain');
      }
      for (const [, resource] of resourcesOfType(templates.staging, type)) {
        expect(resource.DeletionPolicy).toBe('Delete');
      }
    }
  });
});
