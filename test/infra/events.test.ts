import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { OUTPUT } from '#infra/outputs';
import { STAGE_NAMES } from '#infra/stage-names';
import { ENV } from '#shared/config';
import { PET_EVENTS, PET_EVENTS_SOURCE } from '#shared/events/pet-events';
import { DOCUMENTED_DEV_ARCHIVE_RETENTION_DAYS, DOCUMENTED_STAGES } from '../support/documented-stages';
import { PUBLISHER_FUNCTION } from '../support/functions';
import { synthDevStage, synthStages } from '../support/pet-store-app';
import {
  actionsOf,
  functionId,
  liveAliasOf,
  onlyResource,
  resourcesOfType,
  roleOfFunction,
  statementsOfRole,
} from '../support/template-queries';

/**
 * The pets' events in each stage's template: the pets table's stream, the publisher's event
 * source mapping with its failure handling, the bus with its archive, the schema registry (not
 * in a lean developer stack) and the queue of batches given up on. (What IAM lets the publisher do: iam-evaluation.test.ts;
 * its alarms: monitoring.test.ts; its deployments: deployments.test.ts.)
 */

const { templates } = synthStages();
// The developer's stage the dev-stage and cdk-nag tests build too: one synth for all three.
const dev = synthDevStage('dev-ann');
const STAGES = {
  ...Object.fromEntries(
    STAGE_NAMES.map((name) => [
      name,
      { template: templates[name], archiveDays: DOCUMENTED_STAGES[name].events.archiveRetentionDays },
    ]),
  ),
  'dev-ann': { template: dev.template, archiveDays: DOCUMENTED_DEV_ARCHIVE_RETENTION_DAYS },
};

describe.each(Object.entries(STAGES))('%s events', (_stageName, { template, archiveDays }) => {
  const [streamTableId] = resourcesOfType(template, 'AWS::DynamoDB::Table')
    .filter(([, table]) => table.Properties.StreamSpecification !== undefined)
    .map(([id]) => id);
  const [busId] = onlyResource(template, 'AWS::Events::EventBus');
  const [queueId, queue] = onlyResource(template, 'AWS::SQS::Queue');
  const publisherId = functionId(template, PUBLISHER_FUNCTION.description);

  it('streams the pets table, and no other, with the item before and after each write', () => {
    expect(streamTableId).toMatch(/^TablesPets/);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
  });

  it("feeds the stream to the publisher's live alias (a lean stack's function itself): from the oldest record, partial batch failures, bisect on error, bounded retries and age, then the queue", () => {
    const [mappingId, mapping] = onlyResource(template, 'AWS::Lambda::EventSourceMapping');
    const dependsOn = (template.toJSON().Resources as Record<string, { DependsOn?: string[] }>)[mappingId]
      ?.DependsOn;

    expect(mapping.Properties).toEqual({
      FunctionName:
        template === dev.template
          ? { 'Fn::GetAtt': [publisherId, 'Arn'] }
          : { Ref: liveAliasOf(template, publisherId) },
      EventSourceArn: { 'Fn::GetAtt': [streamTableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 3_600,
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    // Created once the role may read the stream, which Lambda checks.
    expect(dependsOn).toContain(roleOfFunction(template, publisherId));
  });

  it(`archives every event of the bus for ${archiveDays} day(s), for replays`, () => {
    template.hasResourceProperties('AWS::Events::Archive', {
      SourceArn: { 'Fn::GetAtt': [busId, 'Arn'] },
      EventPattern: { source: [PET_EVENTS_SOURCE] },
      RetentionDays: archiveDays,
    });
    template.hasOutput(OUTPUT.eventBus, { Value: { Ref: busId } });
  });

  it('gives the publisher its bus, and no table', () => {
    const [, publisher] = onlyResource(
      template,
      'AWS::Lambda::Function',
      (properties) => properties.Description === PUBLISHER_FUNCTION.description,
    );
    const { Variables: variables } = publisher.Properties.Environment as {
      Variables: Record<string, unknown>;
    };

    expect(variables[ENV.eventBus]).toEqual({ Ref: busId });
    expect(Object.keys(variables).filter((name) => name.endsWith('_TABLE_NAME'))).toEqual([]);
    const actions = actionsOf(statementsOfRole(template, roleOfFunction(template, publisherId)));
    expect(
      actions.filter((action) => !action.startsWith('logs:') && !action.startsWith('xray:')).sort(),
    ).toEqual([
      'dynamodb:DescribeStream',
      'dynamodb:GetRecords',
      'dynamodb:GetShardIterator',
      'dynamodb:ListStreams',
      'events:PutEvents',
      'sqs:SendMessage',
    ]);
  });

  it('keeps a given-up batch 14 days in an encrypted queue that takes TLS only', () => {
    expect(queue.Properties).toEqual({ MessageRetentionPeriod: 14 * 24 * 3_600, SqsManagedSseEnabled: true });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sqs:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
          }),
        ],
      },
    });
    template.hasOutput(OUTPUT.eventFailures, { Value: { Ref: queueId } });
  });

  it('registers each event in a schema registry of its own, as OpenAPI 3 with the envelope as AWSEvent (a lean stack has none: docs/asyncapi.yaml is its schemas)', () => {
    if (template === dev.template) {
      template.resourceCountIs('AWS::EventSchemas::Registry', 0);
      template.resourceCountIs('AWS::EventSchemas::Schema', 0);
      expect(Object.keys(template.findOutputs(OUTPUT.eventSchemas))).toEqual([]);
      return;
    }
    const [registryId] = onlyResource(template, 'AWS::EventSchemas::Registry');
    const schemas = resourcesOfType(template, 'AWS::EventSchemas::Schema').map(
      ([, schema]) => schema.Properties,
    );

    expect(schemas.map((schema) => schema.SchemaName)).toEqual(
      Object.keys(PET_EVENTS).map((name) => `${PET_EVENTS_SOURCE}@${name}`),
    );
    for (const [index, name] of Object.keys(PET_EVENTS).entries()) {
      const schema = schemas[index] ?? {};
      const content = JSON.parse(String(schema.Content));
      expect(schema).toMatchObject({
        RegistryName: { 'Fn::GetAtt': [registryId, 'RegistryName'] },
        Type: 'OpenApi3',
      });
      expect(content.openapi).toBe('3.0.0');
      expect(content.components.schemas.AWSEvent).toMatchObject({
        'x-amazon-events-detail-type': name,
        'x-amazon-events-source': PET_EVENTS_SOURCE,
        properties: { detail: { $ref: `#/components/schemas/${name}` } },
      });
      expect(Object.keys(content.components.schemas)).toEqual(
        expect.arrayContaining([name, 'Pet', 'PetStatus']),
      );
    }
    template.hasOutput(OUTPUT.eventSchemas, { Value: { 'Fn::GetAtt': [registryId, 'RegistryName'] } });
  });
});
